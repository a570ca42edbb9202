import HTTP
import JSON
import Relaydeck

/// One request on its way through the API: what was matched, who sent it, and its body.
struct Exchange {
    let request: HTTPRequest
    let parameters: [String]
    /// The parsed body; nil when the endpoint takes none or none was sent.
    let body: JSON?
    /// Set once the credential checked out.
    var principal: Principal?

    var accountID: String { principal?.accountID ?? "" }
}
