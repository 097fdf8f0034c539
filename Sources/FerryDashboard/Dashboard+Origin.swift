import Foundation
import Hummingbird

extension Dashboard {
    /// Why a POST is refused as cross-origin, or `nil` when it may go on.
    ///
    /// Browsers say where a request comes from: `Sec-Fetch-Site` must be `same-origin` (or `none`: typed by the
    /// user), and `Origin`, when sent, must be this dashboard's own. A page on another port of the same host is
    /// same-site, which SameSite cookies do not stop, but it is another origin. A request with neither header (a
    /// script, an old browser) goes on to the other checks: a bearer token, or a live session with its
    /// session-bound CSRF token, which a neighbour cannot produce.
    func crossOriginRefusal(_ request: Request) -> String? {
        if let site = request.headers[Self.fetchSite], !["same-origin", "none"].contains(site.lowercased()) {
            return "cross-site request refused (Sec-Fetch-Site: \(site)): use the dashboard's own pages"
        }
        if let origin = request.headers[.origin] {
            let own = ownOrigin(request)
            guard Self.normalizedOrigin(origin) == own else {
                return "cross-origin request refused: Origin \(origin) is not this dashboard's (\(own)); "
                    + "behind an HTTPS proxy, start the dashboard with --secure-cookies or have the proxy send X-Forwarded-Proto"
            }
        }
        return nil
    }

    /// The origin browsers see: https with `--secure-cookies` or `X-Forwarded-Proto: https`, and the host the
    /// browser asked for (`X-Forwarded-Host` from a proxy, else `Host`). Trusting these headers is safe here: a
    /// page in the operator's browser cannot set them on a cross-site form post, and a script that can send them
    /// has no session cookie to abuse.
    func ownOrigin(_ request: Request) -> String {
        let scheme = configuration.secureCookies || Self.isHTTPS(request) ? "https" : "http"
        let forwarded = request.headers[Self.forwardedHost]?.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) }
        return Self.normalizedOrigin(scheme + "://" + (forwarded ?? request.head.authority ?? ""))
    }

    /// Lower case, without the scheme's default port, as browsers send `Origin`.
    static func normalizedOrigin(_ text: String) -> String {
        var origin = text.lowercased()
        while origin.hasSuffix("/") { origin.removeLast() }
        if origin.hasPrefix("http://"), origin.hasSuffix(":80") { origin.removeLast(3) }
        if origin.hasPrefix("https://"), origin.hasSuffix(":443") { origin.removeLast(4) }
        return origin
    }

    // Not among HTTPTypes' predefined names.
    static var fetchSite: HTTPFields.Element.Name { HTTPFields.Element.Name("Sec-Fetch-Site")! }
    static var forwardedHost: HTTPFields.Element.Name { HTTPFields.Element.Name("X-Forwarded-Host")! }
}
