import Testing
@testable import relaydeckd

/// What `sudo relaydeckd account create` reads on an installed system before it drops to the
/// service user.
@Suite("Operator commands on an installed system")
struct InstalledSystemTests {
    @Test("the settings file is read as systemd's EnvironmentFile= reads it")
    func settingsFile() {
        let text = """
            # a comment
            ; another
            LISTEN=127.0.0.1:8080
              LOG_LEVEL = debug\t
            PUBLIC_URL="https://tasks.example.com"
            APP_ATTEST_APP_IDS='ABCDE12345.com.example.app'
            QUOTED="a \\"b\\" \\\\c"

            #DATABASE_PATH=/elsewhere
            EMPTY=
            """
        #expect(InstalledSystem.parseSettings(text) == .success([
            "LISTEN": "127.0.0.1:8080", "LOG_LEVEL": "debug", "PUBLIC_URL": "https://tasks.example.com",
            "APP_ATTEST_APP_IDS": "ABCDE12345.com.example.app", "QUOTED": "a \"b\" \\c", "EMPTY": "",
        ]))
    }

    @Test("a line that is no setting is refused with its number", arguments: [
        ("LISTEN=x\njust words", 2), ("=value", 1), ("1ABC=x", 1), ("BAD-NAME=x", 1), ("A=1\n\nexport B=2", 3),
    ])
    func badLine(text: String, line: Int) {
        #expect(InstalledSystem.parseSettings(text) == .failure(.init(line: line)))
    }

    @Test("the service user's uid and gid come from the passwd file")
    func passwd() {
        let passwd = """
            root:x:0:0:root:/root:/bin/bash
            relaydeckx:x:5:5::/:/bin/false
            relaydeck:x:998:997::/var/lib/relaydeck:/usr/sbin/nologin
            """
        #expect(InstalledSystem.account("relaydeck", passwd: passwd) == .init(uid: 998, gid: 997))
        #expect(InstalledSystem.account("relaydeck", passwd: "root:x:0:0:root:/root:/bin/bash\n") == nil)
        #expect(InstalledSystem.account("relaydeck", passwd: "relaydeck:x:abc:1::/:/x\n") == nil)
    }

    @Test("the unit's database, then the settings file, then the caller; credentials that exist as _FILE")
    func environment() {
        let credential = "/etc/credstore/relaydeck.app-totp-secret"
        let merged = InstalledSystem.environment(
            caller: ["PATH": "/usr/bin", "LOG_LEVEL": "debug"],
            settings: ["LOG_LEVEL": "warn", "PUBLIC_URL": "https://tasks.example.com"],
            existing: { $0 == credential })
        #expect(merged == ["DATABASE_PATH": "/var/lib/relaydeck/relaydeck.db", "PATH": "/usr/bin", "LOG_LEVEL": "debug",
                           "PUBLIC_URL": "https://tasks.example.com", "APP_TOTP_SECRET_FILE": credential])
        let fromFile = InstalledSystem.environment(caller: [:], settings: ["DATABASE_PATH": "/srv/r.db", "APP_TOTP_SECRET": "JBSW"],
                                                   existing: { _ in true })
        #expect(fromFile["DATABASE_PATH"] == "/srv/r.db")
        #expect(fromFile["APP_TOTP_SECRET_FILE"] == nil && fromFile["APP_TOTP_SECRET"] == "JBSW")
        #expect(fromFile["APNS_PRIVATE_KEY_FILE"] == "/etc/credstore/relaydeck.apns-private-key")
    }

    @Test("the user, database and credentials are those of the unit")
    func sameAsTheUnit() throws {
        let unitPath = String(#filePath.split(separator: "/Tests/", maxSplits: 1)[0]) + "/systemd/relaydeck.service"
        let unit = String(decoding: try Config.readFileFromDisk(unitPath), as: UTF8.self)
        let lines = Set(unit.split(separator: "\n").map(String.init))
        #expect(lines.contains("User=\(InstalledSystem.serviceUser)"))
        #expect(lines.contains("EnvironmentFile=-\(InstalledSystem.settingsFile)"))
        #expect(lines.contains("Environment=DATABASE_PATH=\(InstalledSystem.databasePath)"))
        let loaded = lines.filter { $0.hasPrefix("LoadCredential=") }
        #expect(loaded == Set(InstalledSystem.credentials.map { name, file in
            "LoadCredential=\(name):" + file.dropFirst("/etc/credstore/".count)
        }))
    }
}
