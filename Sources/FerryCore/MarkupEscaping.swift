/// The one escaping of text for HTML and XML (element content and quoted attribute values): `& < > " '` become
/// entities. `&#39;` is valid in both HTML and XML (`&apos;` is not HTML 4), so one spelling serves all three
/// writers: the dashboard's pages, S3's XML request bodies and the dev server's Flickr XML.
public enum MarkupEscaping {
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
