import CNGHTTP2

/// What an HTTP/2 client session reports while it reads frames. Called from inside
/// `HTTP2Session.receive`, so the delegate only records what happened and acts after it.
protocol HTTP2SessionDelegate: AnyObject {
    /// The server's SETTINGS (the first one ends the connection's start).
    func http2SettingsReceived()
    /// GOAWAY: streams above `lastStreamID` were not processed (they close as refused).
    func http2GoawayReceived(lastStreamID: Int32, errorCode: UInt32)
    func http2PingAcknowledged()
    /// The `:status` of a response.
    func http2Status(_ status: Int, stream: Int32)
    func http2Data(_ bytes: UnsafeBufferPointer<UInt8>, stream: Int32)
    /// The stream ended: `errorCode` 0 when it ended normally, else its RST_STREAM or
    /// GOAWAY code (`REFUSED_STREAM`: the server did not process it).
    func http2StreamClosed(_ stream: Int32, errorCode: UInt32)
}

/// An nghttp2 client session driven by hand: bytes in through `receive`, bytes out through
/// `takeOutput`, no socket of its own. The one file of the APNs target that calls nghttp2.
final class HTTP2Session {
    private var session: OpaquePointer?
    private unowned let delegate: any HTTP2SessionDelegate
    /// Request bodies not yet sent, by stream; nghttp2 reads them through `readBody`.
    private var bodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]
    static let refusedStream = UInt32(NGHTTP2_REFUSED_STREAM.rawValue)
    static let cancel = UInt32(NGHTTP2_CANCEL.rawValue)

    init(delegate: any HTTP2SessionDelegate) throws(APNsConfigurationError) {
        self.delegate = delegate
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw APNsConfigurationError("nghttp2: out of memory")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        var made: OpaquePointer?
        let status = nghttp2_session_client_new(&made, callbacks, nil)
        guard status == 0, let made else {
            throw APNsConfigurationError("nghttp2: cannot make a session (\(status))")
        }
        session = made
        nghttp2_session_set_user_data(made, Unmanaged.passUnretained(self).toOpaque())
        // Our SETTINGS: no server push (APNs sends none; saying so costs nothing).
        var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0)]
        _ = nghttp2_submit_settings(made, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
    }

    deinit {
        nghttp2_session_del(session)
    }

    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS (nghttp2 assumes no limit until it comes).
    var remoteMaxConcurrentStreams: Int {
        Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    /// Submits a request; its id, or nil when nghttp2 refuses (no stream ids left).
    func submitRequest(headers: [(String, String)], body: [UInt8]) -> Int32? {
        let fields = headers.map { (Array($0.0.utf8), Array($0.1.utf8)) }
        // nghttp2 copies names and values during the call, so pointers into these arrays
        // need to live only that long.
        var pointers: [(UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>)] = []
        defer { pointers.forEach { $0.0.deallocate(); $0.1.deallocate() } }
        var nva: [nghttp2_nv] = []
        for (name, value) in fields {
            let namePointer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(name.count, 1))
            let valuePointer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(value.count, 1))
            namePointer.initialize(from: name, count: name.count)
            valuePointer.initialize(from: value, count: value.count)
            pointers.append((namePointer, valuePointer))
            nva.append(nghttp2_nv(name: namePointer, value: valuePointer, namelen: name.count, valuelen: value.count,
                                  flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
        }
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readBody)
        let stream = nghttp2_submit_request(session, nil, nva, nva.count, &provider, nil)
        guard stream > 0 else { return nil }
        bodies[stream] = (body, 0)
        return stream
    }

    func submitPing() {
        _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    /// Ends one stream (a request that took too long) with RST_STREAM CANCEL.
    func cancel(stream: Int32) {
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, Self.cancel)
    }

    /// GOAWAY, before the connection is closed on purpose.
    func terminate() {
        _ = nghttp2_session_terminate_session(session, UInt32(NGHTTP2_NO_ERROR.rawValue))
    }

    /// Feeds bytes from the server; false on a protocol error (then close the connection).
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let consumed = nghttp2_session_mem_recv(session, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        return consumed == bytes.count
    }

    /// Appends what nghttp2 has to send to `output`; false on an internal error.
    func takeOutput(into output: inout [UInt8]) -> Bool {
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 { return false }
            guard count > 0, let data else { return true }
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
    }

    /// Whether nghttp2 still wants the connection (false after GOAWAY both ways, or after a
    /// fatal error with nothing left to send).
    var wantsIO: Bool {
        nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    // MARK: Callbacks, from C

    fileprivate static func from(_ userData: UnsafeMutableRawPointer?) -> HTTP2Session {
        Unmanaged<HTTP2Session>.fromOpaque(userData!).takeUnretainedValue()
    }

    fileprivate func body(for stream: Int32, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> (Int, Bool) {
        guard let pending = bodies[stream] else { return (0, true) }
        let count = min(capacity, pending.bytes.count - pending.offset)
        pending.bytes.withUnsafeBufferPointer { source in
            if count > 0 { buffer.update(from: source.baseAddress! + pending.offset, count: count) }
        }
        let offset = pending.offset + count
        if offset >= pending.bytes.count {
            bodies[stream] = nil
            return (count, true)
        }
        bodies[stream] = (pending.bytes, offset)
        return (count, false)
    }

    fileprivate func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) {
        let header = frame.pointee.hd
        switch Int(header.type) {
        case Int(NGHTTP2_SETTINGS.rawValue) where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            delegate.http2SettingsReceived()
        case Int(NGHTTP2_GOAWAY.rawValue):
            delegate.http2GoawayReceived(lastStreamID: frame.pointee.goaway.last_stream_id, errorCode: frame.pointee.goaway.error_code)
        case Int(NGHTTP2_PING.rawValue) where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
            delegate.http2PingAcknowledged()
        default:
            break
        }
    }

    fileprivate func header(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard Int(frame.pointee.hd.type) == Int(NGHTTP2_HEADERS.rawValue),
              name.elementsEqual(":status".utf8), value.count == 3,
              let status = Int(String(decoding: value, as: UTF8.self)) else { return }
        delegate.http2Status(status, stream: frame.pointee.hd.stream_id)
    }

    fileprivate func data(_ bytes: UnsafeBufferPointer<UInt8>, stream: Int32) {
        delegate.http2Data(bytes, stream: stream)
    }

    fileprivate func streamClosed(_ stream: Int32, errorCode: UInt32) {
        bodies[stream] = nil
        delegate.http2StreamClosed(stream, errorCode: errorCode)
    }
}

private func readBody(
    _ session: OpaquePointer?, _ stream: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?, _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    let (count, done) = HTTP2Session.from(userData).body(for: stream, into: buffer, capacity: length)
    if done { flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
    return count
}

private func onFrameReceived(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    if let frame { HTTP2Session.from(userData).frameReceived(frame) }
    return 0
}

private func onHeader(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _ flags: UInt8, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    if let frame, let name, let value {
        HTTP2Session.from(userData).header(frame, name: UnsafeBufferPointer(start: name, count: nameLength),
                                           value: UnsafeBufferPointer(start: value, count: valueLength))
    }
    return 0
}

private func onDataChunk(
    _ session: OpaquePointer?, _ flags: UInt8, _ stream: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    if let data { HTTP2Session.from(userData).data(UnsafeBufferPointer(start: data, count: length), stream: stream) }
    return 0
}

private func onStreamClose(_ session: OpaquePointer?, _ stream: Int32, _ errorCode: UInt32, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    HTTP2Session.from(userData).streamClosed(stream, errorCode: errorCode)
    return 0
}
