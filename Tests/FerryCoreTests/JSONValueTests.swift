import FerryCore
import Testing

@Suite("JSON values")
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
        "", "{", "{\"a\":}", "[1,]", "{\"a\":1,\"a\":2}", "tru", "\"\\x\"", "01x", "{\"a\" 1}", "\"\u{01}\"", "[1] 2",
    ])
    func refusesMalformed(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test("control characters are escaped when written")
    func escapes() {
        #expect(JSONValue.string("a\u{01}b\u{7F}").jsonText == #""a\u0001b\u007f""#)
    }
}
