/// A refused input: which field, what is wrong with it and how to fix it.
///
/// The text never repeats values that could be secrets (URLs are described, not echoed, when they carry
/// credentials).
public struct ValidationIssue: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1-based line of a JSON Lines input, when the job came from one.
    public var line: Int?
    /// The field (JSON key or CLI option) that is wrong.
    public var field: String
    /// What is wrong.
    public var problem: String
    /// What to do instead.
    public var fix: String

    public init(line: Int? = nil, field: String, problem: String, fix: String) {
        self.line = line
        self.field = field
        self.problem = problem
        self.fix = fix
    }

    public var description: String {
        let place = line.map { "line \($0): " } ?? ""
        return "\(place)\(field): \(problem); \(fix)"
    }
}
