/// An account that is not deleted already has the attested key
/// (`app-integrity.md#create-the-account`: one attested key makes one account). The API
/// answers it like any other refused attestation.
public struct AttestedKeyInUse: Error, Equatable, Sendable {
    public init() {}
}
