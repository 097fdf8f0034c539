/// Routes standing in for services other than Dropbox that Ferry fetches from: Flickr's REST
/// API (`api.flickr.com/services/rest/`), its photo host (`live.staticflickr.com`) and any plain
/// web server. They share the port with the Dropbox routes and see the same faults.
enum StandInRoute: Equatable {
    /// `/services/rest` or `/services/rest/`.
    case flickrREST
    /// `/flickr/photos/<rest>`: `<rest>` is `{server}/{id}_{secret}[_{suffix}].jpg`.
    case flickrPhoto(String)
    /// `/web/<rest>`: `<rest>` is the still percent-encoded path under `<storage>/.web/`.
    case web(String)

    init?(path: String) {
        if path == "/services/rest" || path == "/services/rest/" {
            self = .flickrREST
        } else if path.hasPrefix("/flickr/photos/") {
            self = .flickrPhoto(String(path.dropFirst("/flickr/photos/".count)))
        } else if path.hasPrefix("/web/") {
            self = .web(String(path.dropFirst("/web/".count)))
        } else {
            return nil
        }
    }

    /// Name used in `requests_per_route` and in ``FaultConfiguration/routes``.
    var name: String {
        switch self {
        case .flickrREST: return "flickr/rest"
        case .flickrPhoto: return "flickr/photos"
        case .web: return "web"
        }
    }
}
