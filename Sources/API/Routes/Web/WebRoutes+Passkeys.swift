import AppIntegrity
import Clock
import Crypto
import HTTP
import JSON
import Relaydeck

/// Passkeys (WebAuthn): the options the page hands to `navigator.credentials`, and what the
/// server checks of the answers (`WebAuthnVerifier`).
extension WebRoutes {
    static let relyingPartyName = "Relaydeck"

    func verifier(_ call: Call) throws(APIError) -> WebAuthnVerifier {
        let origin = try origin(call)
        return WebAuthnVerifier(relyingPartyID: origin.relyingPartyID, origin: origin.origin)
    }

    static func base64url(_ bytes: [UInt8]) -> String { Base64.encode(bytes, urlSafe: true, padded: false) }

    /// `POST /web/passkeys/registration-options`: `PublicKeyCredentialCreationOptionsJSON`.
    func registrationOptions(_ call: Call) async throws -> Outcome {
        let session = try await session(call)
        let rp = try origin(call)
        let existing = try await signIn.passkeys(accountID: session.accountID)
        try await countChallenge(call)
        guard let challenge = try await challenges.issue(owner: session.accountID, random: context.services.random,
                                               nowMillis: context.services.clock.wallMillis) else {
            throw Limits.challengesFull
        }
        return Answers.object(capacity: 768 + existing.count * 120) { writer in
            writer.beginObject()
            writer.key("publicKey")
            writer.beginObject()
            writer.key("challenge")
            writer.string(Self.base64url(challenge))
            writer.key("rp")
            writer.beginObject()
            writer.key("id")
            writer.string(rp.relyingPartyID)
            writer.key("name")
            writer.string(Self.relyingPartyName)
            writer.endObject()
            writer.key("user")
            writer.beginObject()
            // The user handle is the account ID: opaque and random, nothing about the person.
            writer.key("id")
            writer.string(Self.base64url(Array(session.accountID.utf8)))
            writer.key("name")
            writer.string(session.accountID)
            writer.key("displayName")
            writer.string("Relaydeck account")
            writer.endObject()
            writer.key("pubKeyCredParams")
            writer.beginArray()
            for alg in [-7, -8] {
                writer.beginObject()
                writer.key("type")
                writer.string("public-key")
                writer.key("alg")
                writer.int(alg)
                writer.endObject()
            }
            writer.endArray()
            writer.key("timeout")
            writer.int(PasskeyChallenges.lifetimeMillis)
            writer.key("attestation")
            writer.string("none")
            writer.key("authenticatorSelection")
            writer.beginObject()
            writer.key("residentKey")
            writer.string("required")
            writer.key("requireResidentKey")
            writer.bool(true)
            writer.key("userVerification")
            writer.string("required")
            writer.endObject()
            writer.key("excludeCredentials")
            writer.beginArray()
            for passkey in existing {
                writer.beginObject()
                writer.key("type")
                writer.string("public-key")
                writer.key("id")
                writer.string(Self.base64url(passkey.credentialID))
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
            writer.endObject()
        }
    }

    /// `POST /web/passkeys` `{"name", "credential": RegistrationResponseJSON}`. A registration
    /// that does not check out is `422` on `credential` (the session is fine; the passkey is not).
    func register(_ call: Call) async throws -> Outcome {
        let session = try await session(call)
        var body = call.bodyReader()
        let name = body.read("name", .text(.passkeyName))
        body.require("name")
        let credential = Self.credentialFields(call.body?["credential"], ["clientDataJSON", "attestationObject"], &body)
        try body.check()
        guard let name, let credential else { throw APIError.validation([FieldProblem("credential", "Required.")]) }
        let refused = APIError.validation([FieldProblem("credential", "The passkey could not be verified.")])
        let clientData = credential["clientDataJSON"]!
        // The challenge is used up by this attempt whatever follows.
        guard let challenge = try? WebAuthnVerifier.challenge(in: clientData),
              try await challenges.use(challenge, owner: session.accountID, nowMillis: context.services.clock.wallMillis) else {
            throw refused
        }
        let made: WebAuthnVerifier.NewCredential
        do {
            made = try verifier(call).verifyRegistration(clientDataJSON: clientData, attestationObject: credential["attestationObject"]!,
                                                         challenge: challenge)
        } catch {
            throw refused
        }
        guard made.credentialID == credential["rawId"]! else { throw refused }
        let passkey = try await signIn.addPasskey(accountID: session.accountID, credentialID: made.credentialID, publicKey: made.publicKey,
                                            signCount: made.signCount, name: name)
        return Answers.object(201, capacity: 200) { writer in
            writer.beginObject()
            writer.key("passkey")
            passkey.write(to: &writer)
            writer.endObject()
        }
    }

    /// `GET /web/passkeys`
    func listPasskeys(_ call: Call) async throws -> Outcome {
        let session = try await session(call)
        return Answers.list("passkeys", try await signIn.passkeys(accountID: session.accountID), bytesEach: 160) { $0.write(to: &$1) }
    }

    /// `DELETE /web/passkeys/{passkey_id}`
    func removePasskey(_ call: Call) async throws -> Outcome {
        let session = try await session(call)
        let id = try call.path("passkey_id")
        guard Identifier.isWellFormed(Substring(id), prefix: "psk_") else { throw DomainError.notFound("Passkey not found.") }
        try await signIn.deletePasskey(accountID: session.accountID, id: id)
        return Answers.noContent
    }

    /// `POST /web/passkeys/authentication-options`: `PublicKeyCredentialRequestOptionsJSON`
    /// for a discoverable passkey (no list of credentials: the browser offers the ones it has).
    func authenticationOptions(_ call: Call) async throws -> Outcome {
        try OwnOrigin.screen(call.request.head, context.configuration)
        let rp = try origin(call)
        try await countChallenge(call)
        guard let challenge = try await challenges.issue(owner: "", random: context.services.random,
                                               nowMillis: context.services.clock.wallMillis) else {
            throw Limits.challengesFull
        }
        return Answers.object(capacity: 256) { writer in
            writer.beginObject()
            writer.key("publicKey")
            writer.beginObject()
            writer.key("challenge")
            writer.string(Self.base64url(challenge))
            writer.key("rpId")
            writer.string(rp.relyingPartyID)
            writer.key("timeout")
            writer.int(PasskeyChallenges.lifetimeMillis)
            writer.key("userVerification")
            writer.string("required")
            writer.key("allowCredentials")
            writer.beginArray()
            writer.endArray()
            writer.endObject()
            writer.endObject()
        }
    }

    /// `POST /web/passkeys/authentication` `{"credential": AuthenticationResponseJSON}`: every
    /// refusal after the fields were read is the same `401`.
    func authenticate(_ call: Call) async throws -> Outcome {
        try OwnOrigin.screen(call.request.head, context.configuration)
        var body = call.bodyReader()
        let credential = Self.credentialFields(call.body?["credential"], ["clientDataJSON", "authenticatorData", "signature", "userHandle"], &body)
        try body.check()
        guard let credential else { throw APIError.validation([FieldProblem("credential", "Required.")]) }
        try await countAttempt(call)
        let clientData = credential["clientDataJSON"]!
        guard let challenge = try? WebAuthnVerifier.challenge(in: clientData),
              try await challenges.use(challenge, owner: "", nowMillis: context.services.clock.wallMillis),
              let passkey = try await signIn.passkey(credentialID: credential["rawId"]!),
              credential["userHandle"]! == Array(passkey.accountID.utf8) else {
            throw APIError.unauthorized
        }
        let signCount: UInt32
        do {
            signCount = try verifier(call).verifyAssertion(
                clientDataJSON: clientData, authenticatorData: credential["authenticatorData"]!, signature: credential["signature"]!,
                challenge: challenge, publicKey: passkey.publicKey, storedSignCount: passkey.signCount)
        } catch {
            throw APIError.unauthorized
        }
        guard try await signIn.recordPasskeyUse(passkey, signCount: signCount) else { throw APIError.unauthorized }
        return try await signedIn(passkey.accountID, call)
    }

    /// The base64url fields of a `credential` object (`rawId`, and `names` of its `response`),
    /// decoded; problems join `body`. Other members (`id`, `type`, `transports`,
    /// `clientExtensionResults`, `authenticatorAttachment`, ...) are what browsers add and are
    /// not read, so the reader is not strict here.
    static func credentialFields(_ value: JSON?, _ names: [String], _ body: inout FieldReader) -> [String: [UInt8]]? {
        body.ignore("credential")
        guard let value else {
            body.add("credential", "Required.")
            return nil
        }
        guard case .object = value, let response = value["response"], case .object = response else {
            body.add("credential", "Must be an object with a response object.")
            return nil
        }
        if let type = value["type"], type.stringValue != "public-key" {
            body.add("credential.type", "Must be \"public-key\".")
        }
        var fields: [String: [UInt8]] = [:]
        func decode(_ json: JSON?, _ path: String) -> [UInt8]? {
            guard let text = json?.stringValue else {
                body.add(path, json == nil ? "Required." : "Must be a string.")
                return nil
            }
            guard let bytes = Base64.decode(text), !bytes.isEmpty else {
                body.add(path, "Must be base64url.")
                return nil
            }
            return bytes
        }
        fields["rawId"] = decode(value["rawId"], "credential.rawId")
        for name in names {
            fields[name] = decode(response[name], "credential.response.\(name)")
        }
        return fields.count == names.count + 1 ? fields : nil
    }
}
