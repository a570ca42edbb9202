import Relaydeck
import Testing
@testable import relaydeckd

/// `ACCOUNT_CREATION` and `ACCOUNT_STORAGE_LIMIT`: read, checked, and shown in the summary
/// that `check-config` prints and the start logs.
@Suite struct ConfigAccountsTests {
    @Test func accountCreationIsOpenUnlessClosed() throws {
        #expect(try load([:]).accountCreationOpen)
        #expect(try load(["ACCOUNT_CREATION": "open"]).accountCreationOpen)
        #expect(try !load(["ACCOUNT_CREATION": "closed"]).accountCreationOpen)
        #expect(try !load(["ACCOUNT_CREATION": "CLOSED"]).accountCreationOpen)
    }

    @Test func anUnknownAccountCreationValueIsAConfigError() {
        for text in ["no", "off", "false", "invite", "closed "] {
            #expect(loadError(["ACCOUNT_CREATION": text])?.description
                == "ACCOUNT_CREATION: expected open or closed (got \(ConfigError.quoted(text)))", "\(text)")
        }
    }

    @Test func theStorageLimitIsBytesOrAWholeNumberOfBinaryUnits() throws {
        #expect(try load([:]).accountStorageLimit == 256 << 20)
        #expect(StorageQuota.defaultLimit == 256 << 20)
        for (text, bytes) in [("1024", 1024), ("1048576", 1 << 20), ("64KiB", 64 << 10), ("64 kib", 64 << 10),
                              ("256MiB", 256 << 20), ("2GiB", 2 << 30), ("1024GiB", 1 << 40), ("0001KiB", 1024)] {
            #expect(try load(["ACCOUNT_STORAGE_LIMIT": text]).accountStorageLimit == bytes, "\(text)")
        }
    }

    @Test func aStorageLimitOutOfRangeOrWithAnotherUnitIsAConfigError() {
        for text in ["1023", "0", "0KiB", "1025GiB", "256MB", "256M", "256 MiB ", "256  MiB", "MiB", "-1MiB", "1.5GiB",
                     "1e9", "256MiBs", "1TiB", "9999999999"] {
            #expect(loadError(["ACCOUNT_STORAGE_LIMIT": text])?.description
                == "ACCOUNT_STORAGE_LIMIT: expected a size from 1KiB to 1024GiB: bytes, or a whole number with KiB, MiB or "
                + "GiB like 256MiB (got \(ConfigError.quoted(text)))", "\(text)")
        }
    }

    @Test func emptyValuesCountAsUnset() throws {
        let config = try load(["ACCOUNT_CREATION": "", "ACCOUNT_STORAGE_LIMIT": ""])
        #expect(config.accountCreationOpen && config.accountStorageLimit == StorageQuota.defaultLimit)
    }

    @Test func theSummaryShowsBothAsAnOperatorWritesThem() throws {
        let defaults = try load([:]).summary
        #expect(defaults.contains { $0 == ("ACCOUNT_CREATION", "open") })
        #expect(defaults.contains { $0 == ("ACCOUNT_STORAGE_LIMIT", "256MiB") })
        let set = try load(["ACCOUNT_CREATION": "Closed", "ACCOUNT_STORAGE_LIMIT": "2000"]).summary
        #expect(set.contains { $0 == ("ACCOUNT_CREATION", "closed") })
        #expect(set.contains { $0 == ("ACCOUNT_STORAGE_LIMIT", "2000") })
        #expect(try load(["ACCOUNT_STORAGE_LIMIT": "3072KiB"]).summary.contains { $0 == ("ACCOUNT_STORAGE_LIMIT", "3MiB") })
    }
}
