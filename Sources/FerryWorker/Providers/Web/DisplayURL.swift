/// URLs as they may appear in logs and `last_error`: without the query string, fragment or user info, which
/// can carry signatures and credentials.
enum DisplayURL {
    static func of(_ url: String) -> String {
        var text = Substring(url)
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<cut] }
        guard let scheme = text.range(of: "://") else { return String(text) }
        let rest = text[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        if let at = rest[..<authorityEnd].lastIndex(of: "@") {
            return String(text[..<scheme.upperBound]) + String(rest[rest.index(after: at)...])
        }
        return String(text)
    }
}
