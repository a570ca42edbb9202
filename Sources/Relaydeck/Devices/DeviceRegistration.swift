/// The body of `PUT /v1/devices/{device_id}`, checked (`rest-api.md#devices`): the fields of
/// the Device without `id` and `updated_at`. A token that is not sent is nil and is stored as
/// `null`: "Send all tokens that the device has in each PUT."
public struct DeviceRegistration: Sendable, Equatable {
    public var platform: Device.Platform
    public var model: CheckedText
    public var osVersion: CheckedText
    public var appVersion: CheckedText
    public var environment: Device.Environment
    public var apnsToken: PushToken?
    public var pushToStartToken: PushToken?
    public var widgetPushToken: PushToken?

    public init(platform: Device.Platform, model: CheckedText, osVersion: CheckedText, appVersion: CheckedText,
                environment: Device.Environment, apnsToken: PushToken? = nil, pushToStartToken: PushToken? = nil,
                widgetPushToken: PushToken? = nil) {
        self.platform = platform
        self.model = model
        self.osVersion = osVersion
        self.appVersion = appVersion
        self.environment = environment
        self.apnsToken = apnsToken
        self.pushToStartToken = pushToStartToken
        self.widgetPushToken = widgetPushToken
    }
}

extension TextRule {
    /// A device's `model`, `os_version` and `app_version` (`rest-api.md#device`): the contract
    /// sets no length, and what the app sends is short (`iPhone18,1`, `27.0`, `1.0 (1)`), so
    /// one line of 1 to 64 characters leaves room for any real value.
    public static let deviceDescription = TextRule(characters: 1...64, bytes: 256)
}
