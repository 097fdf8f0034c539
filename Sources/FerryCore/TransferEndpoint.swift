/// A place a transfer reads from or writes to, parsed from the forms the CLI accepts.
public enum TransferEndpoint: Sendable, Hashable {
    /// `dropbox:ACCOUNT:/path`, a path in an account's Dropbox.
    case dropbox(account: String, path: String)
    /// `file:///dir/file`, a local directory (a mounted NAS or volume) used as an upload destination.
    case directory(path: String)
    /// `flickr:USER_ID`, a Flickr user's public photostream.
    case flickr(userID: String)
    /// An `http(s)://` URL to fetch.
    case web(url: String)
    /// A local file path (upload source or fetch target).
    case local(path: String)

    /// The canonical text form, as stored in the job.
    public var text: String {
        switch self {
        case .dropbox(let account, let path): "dropbox:\(account):\(path)"
        case .directory(let path): "file://" + Self.percentEncodePath(path)
        case .flickr(let userID): "flickr:" + userID
        case .web(let url): url
        case .local(let path): path
        }
    }

    /// The account this endpoint uses, if any.
    public var account: String? {
        if case .dropbox(let account, _) = self { return account }
        return nil
    }

    static func percentEncodePath(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
