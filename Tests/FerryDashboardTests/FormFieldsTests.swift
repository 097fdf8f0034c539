import FerryTestSupport
import Testing

@testable import FerryDashboard

/// Form and query fields decode as browsers encode them: a GET form's `+`, a link's `%20`, a literal `%2B`.
@Suite("Form fields", .tags(.fast))
struct FormFieldsTests {
    @Test("+ and %20 are spaces, %2B a plus, repeated names kept in order, a bare name empty")
    func decodes() {
        let fields = FormFields("q=Caf%C3%A9+de%20Flore&sum=1%2B1&job=a&job=b&flag&=x&a+b=c")
        #expect(fields["q"] == "Café de Flore")
        #expect(fields["sum"] == "1+1")
        #expect(fields.all("job") == ["a", "b"] && fields["job"] == "b")
        #expect(fields["flag"] == "")
        #expect(fields["a b"] == "c")
        #expect(fields["missing"] == nil)
    }

    @Test("hostile: an undecodable % keeps the text as sent (spaces decoded), never a crash or a lost field")
    func hostile() {
        let fields = FormFields("q=100%zz+off&r=%&s=%E2%82&t=%3Cscript%3E&&&=&u=" + String(repeating: "%41", count: 10_000))
        #expect(fields["q"] == "100%zz off")
        #expect(fields["r"] == "%")
        #expect(fields["s"] == "%E2%82", "not UTF-8 once decoded: kept as sent")
        #expect(fields["t"] == "<script>", "decoded here; the page escapes it")
        #expect(fields["u"]?.count == 10_000)
    }
}
