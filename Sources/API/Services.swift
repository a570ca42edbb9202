import Clock
import Relaydeck

/// The domain services the API calls.
public struct Services {
    public let store: Store
    public let clock: any Clock
    public let accounts: Accounts
    public let keys: Keys
    public let authenticator: Authenticator

    public init(store: Store, clock: any Clock, random: any RandomSource) {
        self.store = store
        self.clock = clock
        accounts = Accounts(store: store, clock: clock, random: random)
        keys = Keys(store: store, clock: clock, random: random)
        authenticator = Authenticator(store: store)
    }
}
