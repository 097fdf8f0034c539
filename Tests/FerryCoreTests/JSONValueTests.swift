import FerryCore
import FerryTestSupport
import Testing

@Suite("JSON values", .tags(.fast))
struct JSONValueTests {
    @Test("parse and write round-trip with sorted keys and exact integers")
    func roundTrip() throws {
        let text = #"{"b":[1,-2,3.5,true,false,null],"a":"x\"y\\z\n\u00e9\ud83d\ude00","big":9007199254740993}"#
        let value = try JSONValue.parse(text)
        #expect(value["big"]?.intValue == 9_007_199_254_740_993)
        #expect(value["a"]?.stringValue == "x\"y\\z\né😀")
        #expect(value.jsonText == #"{"a":"x\"y\\z\né😀","b":[1,-2,3.5,true,false,null],"big":9007199254740993}"#)
        #expect(try JSONValue.parse(value.jsonText) == value)
    }

    @Test("malformed JSON is refused with a position", arguments: [
        "", "{", "{\"a\":}", "[1,]", "{\"a\":1,\"a\":2}", "tru", "\"\\x\"", "01x", "{\"a\" 1}", "\"\u{01}\"", "[1] 2", #""\ud83d""#, #""\ude00x""#,
    ])
    func refusesMalformed(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test("control characters are escaped when written")
    func escapes() {
        #expect(JSONValue.string("a\u{01}b\u{7F}").jsonText == #""a\u0001b\u007f""#)
    }
}

@Suite("JSON values: bytes, text options and readers", .tags(.fast))
struct JSONValueOptionsTests {
    @Test("parsing raw bytes matches parsing text, and invalid UTF-8 in a string is refused")
    func parseBytes() throws {
        let text = #"{"name":"Été 😀","n":[1,2.5]}"#
        #expect(try JSONValue.parse(utf8: Array(text.utf8)) == JSONValue.parse(text))
        // 0xC3 0x28 is not UTF-8: a lossy decode would have turned it into U+FFFD and accepted it.
        #expect(throws: JSONParseError.self) { try JSONValue.parse(utf8: [0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(utf8: []) }
    }

    @Test("ASCII-only text escapes every non-ASCII character and DEL, as Dropbox's headers need")
    func asciiOnly() throws {
        let value = JSONValue.object(["name": .string("Été 😀\u{7F}/x")])
        let ascii = value.jsonText(.asciiOnly)
        #expect(ascii == #"{"name":"\u00c9t\u00e9 \ud83d\ude00\u007f/x"}"#)
        #expect(ascii == value.asciiJSONText)
        #expect(ascii.utf8.allSatisfy { $0 < 0x7F })
        #expect(try JSONValue.parse(ascii) == value)
    }

    @Test("escaping slashes writes \\/ only when asked; the plain text is unchanged")
    func slashes() throws {
        let value = JSONValue.object(["url": .string("https://example.com/a"), "ö/": .int(1)])
        #expect(value.jsonText == #"{"url":"https://example.com/a","ö/":1}"#)
        #expect(value.jsonText([]) == value.jsonText)
        #expect(value.jsonText(.escapingSlashes) == #"{"url":"https:\/\/example.com\/a","ö\/":1}"#)
        #expect(value.jsonText([.asciiOnly, .escapingSlashes]) == #"{"url":"https:\/\/example.com\/a","\u00f6\/":1}"#)
        #expect(try JSONValue.parse(value.jsonText([.asciiOnly, .escapingSlashes])) == value)
    }

    @Test("leading keys come first in the given order at every level; the rest stay sorted")
    func leadingKeys() throws {
        let value = try JSONValue.parse(#"{"b":1,"stat":"ok","a":{"z":1,"id":2,"c":3},"photos":[{"title":"t","id":"1"}]}"#)
        #expect(value.jsonText([], leadingKeys: ["photos", "id", "stat"])
            == #"{"photos":[{"id":"1","title":"t"}],"stat":"ok","a":{"id":2,"c":3,"z":1},"b":1}"#)
        #expect(value.jsonText([], leadingKeys: []) == value.jsonText)
        #expect(value.jsonText([], leadingKeys: ["missing"]) == value.jsonText)
    }

    @Test("typed readers answer only for their own kind")
    func readers() throws {
        let value = try JSONValue.parse(#"{"b":true,"a":[1],"i":3,"d":2.5,"z":null,"s":"x","o":{}}"#)
        #expect(value["b"]?.boolValue == true)
        #expect(value["i"]?.boolValue == nil)
        #expect(value["a"]?.arrayValue == [.int(1)])
        #expect(value["o"]?.objectValue == [:])
        #expect(value["s"]?.objectValue == nil)
        #expect(value["i"]?.numberValue == 3)
        #expect(value["d"]?.numberValue == 2.5)
        #expect(value["s"]?.numberValue == nil)
        #expect(value["z"]?.isNull == true)
        #expect(value["s"]?.isNull == false)
    }

    @Test("Stone union tags come from a bare string or an object's .tag")
    func unionTags() throws {
        #expect(JSONValue.string("add").unionTag == "add")
        #expect(JSONValue.tag("overwrite") == .object([".tag": .string("overwrite")]))
        #expect(JSONValue.tag("overwrite").unionTag == "overwrite")
        #expect(try JSONValue.parse(#"{".tag":"update","update":"a1b2c3d4e"}"#).unionTag == "update")
        #expect(JSONValue.int(1).unionTag == nil)
        #expect(JSONValue.object(["tag": .string("x")]).unionTag == nil)
    }
}
