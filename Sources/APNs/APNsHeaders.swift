/// The header block of one push (`POST /3/device/<token>`), pseudo-headers first as
/// HTTP/2 requires. Names are lowercase, as HTTP/2 requires too.
enum APNsHeaders {
    static func build(for request: APNsRequest, authority: String, scheme: String, providerToken: String) -> [(String, String)] {
        var headers: [(String, String)] = [
            (":method", "POST"),
            (":scheme", scheme),
            (":authority", authority),
            (":path", "/3/device/\(request.deviceToken)"),
            ("authorization", "bearer \(providerToken)"),
            ("apns-push-type", request.pushType),
            ("apns-topic", request.topic),
            ("apns-priority", String(request.priority)),
        ]
        if let collapseID = request.collapseID {
            headers.append(("apns-collapse-id", collapseID))
        }
        if let expiration = request.expiration {
            headers.append(("apns-expiration", String(expiration)))
        }
        headers.append(("content-type", "application/json"))
        headers.append(("content-length", String(request.payload.count)))
        return headers
    }

    /// Why the request cannot go out as it is, before it reaches APNs: a device token that
    /// is not a path segment of letters and digits (APNs tokens are hexadecimal), or a
    /// header value with a control character that would break the header block.
    static func problem(in request: APNsRequest) -> String? {
        let token = request.deviceToken.utf8
        if token.isEmpty || token.count > 200 || !token.allSatisfy({ isAlphanumeric($0) }) {
            return "BadDeviceToken"
        }
        for value in [request.pushType, request.topic, request.collapseID ?? ""] where value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            return "BadHeaderValue"
        }
        if request.topic.isEmpty { return "MissingTopic" }
        return nil
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
