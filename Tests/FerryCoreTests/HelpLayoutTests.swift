import FerryCore
import FerryTestSupport
import Testing

/// `--help` leads with what a command does and how to call it; the long text (details, examples) follows the
/// options instead of burying USAGE under it.
@Suite("help: usage first", .tags(.fast))
struct HelpLayoutTests {
    static let argumentParserHelp = """
        OVERVIEW: Add jobs to the queue.

        upload: a long paragraph
        of prose.

        Examples:
          ferry enqueue --from jobs.jsonl

        USAGE: ferry enqueue upload <file> ... --to <dest>
               ferry enqueue --from <file|->

        OPTIONS:
          --to <dest>             Destination.
          -h, --help              Show help information.

        """

    @Test("the discussion moves after the options; the abstract, USAGE and options keep their order")
    func discussionLast() throws {
        let lines = HelpLayout.usageFirst(Self.argumentParserHelp).components(separatedBy: "\n")
        #expect(lines[0] == "OVERVIEW: Add jobs to the queue.")
        #expect(lines[1] == "")
        #expect(lines[2] == "USAGE: ferry enqueue upload <file> ... --to <dest>")
        let options = try #require(lines.firstIndex(of: "OPTIONS:"))
        let prose = try #require(lines.firstIndex(of: "upload: a long paragraph"))
        #expect(options < prose, "\(lines)")
        // Examples stay a block: a heading and its indented lines, ended by a blank line or the end.
        let examples = try #require(lines.firstIndex(of: "Examples:"))
        #expect(lines[examples + 1] == "  ferry enqueue --from jobs.jsonl")
        #expect(lines.filter { $0.contains("--help") }.count == 1)
        #expect(lines.last?.isEmpty == false, "no trailing blank lines: \(lines)")
    }

    @Test("text that is not a command's help, or help without a discussion, is left as it is")
    func otherTextUntouched() {
        let plain = "OVERVIEW: Show jobs.\n\nUSAGE: ferry status\n\nOPTIONS:\n  --json\n"
        #expect(HelpLayout.usageFirst(plain) == plain)
        #expect(HelpLayout.usageFirst("0.9.0 (schema 43)") == "0.9.0 (schema 43)")
        let script = "#!/bin/bash\n\nUSAGE: not a help\n"
        #expect(HelpLayout.usageFirst(script) == script)
    }
}
