import FerryCore
import Hummingbird

/// How a Flickr REST answer is written, chosen by `format`, `nojsoncallback` and
/// `jsoncallback` as on api.flickr.com. Every answer, failures included, is HTTP 200.
enum FlickrResponseFormat: Equatable {
    /// The default `rest` format: `<rsp stat="ok">...</rsp>`.
    case xml
    /// `format=json&nojsoncallback=1`.
    case json
    /// `format=json` alone: JSONP wrapped in `jsonFlickrApi(...)`, or in `jsoncallback`'s name.
    case jsonp(callback: String)

    /// `nil` with the unknown format's name, which Flickr reports as error 111 in XML.
    static func parse(_ parameters: [String: String]) -> (format: FlickrResponseFormat?, requested: String) {
        let requested = parameters["format"] ?? "rest"
        switch requested {
        case "rest": return (.xml, requested)
        case "json":
            if parameters["nojsoncallback"] == "1" { return (.json, requested) }
            // The callback name ends up as JavaScript, so anything but identifier characters is ignored.
            let isIdentifier = { (name: String) in
                !name.isEmpty && name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.$".unicodeScalars.contains($0) }
            }
            let callback = parameters["jsoncallback"].flatMap { isIdentifier($0) ? $0 : nil }
            return (.jsonp(callback: callback ?? "jsonFlickrApi"), requested)
        default: return (nil, requested)
        }
    }

    /// `{"stat":"fail","code":N,"message":"..."}` in this format.
    func failure(code: Int, message: String) -> Response {
        render(.object(["stat": .string("fail"), "code": .int(Int64(code)), "message": .string(message)]))
    }

    /// A successful payload: `result` members and `"stat":"ok"`.
    func success(_ members: [String: JSONValue]) -> Response {
        render(.object(members.merging(["stat": .string("ok")]) { $1 }))
    }

    private func render(_ value: JSONValue) -> Response {
        var headers = HTTPFields()
        let text: String
        switch self {
        case .json:
            headers[.contentType] = "application/json; charset=utf-8"
            text = value.jsonText([.asciiOnly, .escapingSlashes], leadingKeys: Self.memberOrder)
        case .jsonp(let callback):
            headers[.contentType] = "text/javascript; charset=utf-8"
            text = callback + "(" + value.jsonText([.asciiOnly, .escapingSlashes], leadingKeys: Self.memberOrder) + ")"
        case .xml:
            headers[.contentType] = "text/xml; charset=utf-8"
            text = Self.xml(value)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Members in the order api.flickr.com writes them (`stat` after the payload, before `code` and `message`
    /// of a failure); extras and anything else follow sorted.
    static let memberOrder = [
        "photos", "stat", "code", "message", "page", "pages", "perpage", "total", "photo",
        "id", "owner", "secret", "server", "farm", "title", "ispublic", "isfriend", "isfamily",
    ]
    private static let memberRanks = Dictionary(uniqueKeysWithValues: memberOrder.enumerated().map { ($1, $0) })

    private static func ordered(_ members: [String: JSONValue]) -> [(key: String, value: JSONValue)] {
        members.sorted { (memberRanks[$0.key] ?? Int.max, $0.key) < (memberRanks[$1.key] ?? Int.max, $1.key) }
    }

    /// Flickr's XML shape: `stat` is an attribute of `<rsp>`, an error is `<err code msg/>`,
    /// scalar members become attributes and arrays repeated child elements.
    static func xml(_ value: JSONValue) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n"
        let stat = value["stat"]?.stringValue ?? "ok"
        out += "<rsp stat=\"\(stat)\">\n"
        if stat == "fail" {
            out += "\t<err code=\"\(value["code"]?.intValue ?? 0)\" msg=\"\(escape(value["message"]?.stringValue ?? ""))\" />\n"
        } else if case .object(let members) = value {
            for (name, member) in ordered(members) where name != "stat" {
                element(name, member, depth: 0, into: &out)
            }
        }
        out += "</rsp>\n"
        return out
    }

    private static func element(_ name: String, _ value: JSONValue, depth: Int, into out: inout String) {
        guard case .object(let members) = value else { return }
        let indent = String(repeating: "\t", count: depth)
        var attributes = ""
        var children: [(String, JSONValue)] = []
        for (key, member) in ordered(members) {
            switch member {
            case .object: children.append((key, member))
            case .array(let items): children += items.map { (key, $0) }
            case .string(let s): attributes += " \(key)=\"\(escape(s))\""
            case .int(let i): attributes += " \(key)=\"\(i)\""
            case .bool(let b): attributes += " \(key)=\"\(b ? 1 : 0)\""
            case .double(let d): attributes += " \(key)=\"\(d)\""
            case .null: break
            }
        }
        if children.isEmpty {
            out += "\(indent)<\(name)\(attributes) />\n"
        } else {
            out += "\(indent)<\(name)\(attributes)>\n"
            for (key, child) in children { element(key, child, depth: depth + 1, into: &out) }
            out += "\(indent)</\(name)>\n"
        }
    }

    private static func escape(_ text: String) -> String { MarkupEscaping.escape(text) }
}
