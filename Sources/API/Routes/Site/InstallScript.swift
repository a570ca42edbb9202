/// `GET /install`: the agent setup script (`site/install.sh`) with this server's address in
/// place of `@PUBLIC_URL@`. The address is `PUBLIC_URL` (checked at start) or a checked Host
/// header, so it holds no quote or shell character.
enum InstallScript {
    static let placeholder = "@PUBLIC_URL@"

    static func text(for origin: String) -> [UInt8] {
        Array(template.replacing(placeholder, with: origin).utf8)
    }
}
