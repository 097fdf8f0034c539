import FerryCore
import Hummingbird

/// What a page handler produces: the same data as HTML (inside the layout) and as JSON.
struct DashboardPage {
    var title: String
    var html: String
    var json: JSONValue
    /// 200, or 410 Gone for an archived job or batch (the page says where it went).
    var status: HTTPResponse.Status = .ok
}
