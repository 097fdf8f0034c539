import FerryCore

/// What a page handler produces: the same data as HTML (inside the layout) and as JSON.
struct DashboardPage {
    var title: String
    var html: String
    var json: JSONValue
}
