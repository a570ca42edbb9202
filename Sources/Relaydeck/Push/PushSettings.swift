/// What the server needs to address pushes (`push.md#overview-of-the-pushes`): the app's
/// bundle ID, and the watch app's, which `watchos` devices get (none without it).
public struct PushSettings: Sendable, Equatable {
    public var bundleID: String
    public var watchBundleID: String?

    public init(bundleID: String, watchBundleID: String? = nil) {
        self.bundleID = bundleID
        self.watchBundleID = watchBundleID
    }

    /// The `apns-topic` for a device of `platform`: the bundle ID plus `suffix`, or nil when
    /// a watch has no topic on this server.
    func topic(_ platform: Device.Platform, _ suffix: Suffix = .none) -> String? {
        let base = platform == .watchos ? watchBundleID : bundleID
        return base.map { $0 + suffix.rawValue }
    }

    enum Suffix: String {
        case none = ""
        case liveActivity = ".push-type.liveactivity"
        case widgets = ".push-type.widgets"
    }
}
