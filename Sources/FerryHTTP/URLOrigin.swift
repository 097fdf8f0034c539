/// The origin of a URL (`scheme://host[:port]`, lowercased): where a URL handed back by a remote service (an upload
/// session, a next page) may point when an access token goes with it.
public enum URLOrigin {
    /// `nil` for anything but http(s), or a URL with user info.
    public static func of(_ url: String) -> String? {
        let lower = url.lowercased()
        guard let schemeEnd = lower.range(of: "://"), ["http", "https"].contains(String(lower[..<schemeEnd.lowerBound])) else {
            return nil
        }
        let rest = lower[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        return String(lower[..<schemeEnd.upperBound]) + authority
    }
}
