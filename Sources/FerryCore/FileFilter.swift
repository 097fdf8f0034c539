import Foundation

/// Which files of an upload tree (or a list of paths) to take: include/exclude rules, first match wins, then size
/// and age limits. Pure: the caller supplies each file's relative path, size and modification time.
public struct FileFilter: Sendable {
    /// One `+ GLOB` or `- GLOB` rule, with where it came from for messages.
    public struct Rule: Sendable {
        public var include: Bool
        public var pattern: GlobPattern
        /// `--include '*.jpg'`, `--filter-from rules.txt:3` …
        public var origin: String

        public init(include: Bool, pattern: GlobPattern, origin: String) {
            self.include = include
            self.pattern = pattern
            self.origin = origin
        }
    }

    /// What to do with one file.
    public enum Verdict: Sendable, Equatable {
        case take
        /// Left out, with the reason (the rule or limit that excluded it).
        case skip(String)
    }

    /// In order: the first rule whose pattern matches decides. No match takes the file.
    public var rules: [Rule]
    /// Files smaller than this are left out (`--min-size`).
    public var minSize: Int64?
    /// Files larger than this are left out (`--max-size`).
    public var maxSize: Int64?
    /// Files modified before this are left out (`--max-age`).
    public var modifiedAfter: Date?
    /// Files modified after this are left out (`--min-age`).
    public var modifiedBefore: Date?
    /// `--max-age` as a span counted back from when the filter is applied (a schedule's filter at each tick), not
    /// from when it was written; ``anchored(at:)`` turns it into `modifiedAfter`.
    public var maxAge: TimeInterval?
    /// `--min-age` as a span counted back from when the filter is applied.
    public var minAge: TimeInterval?

    public init(rules: [Rule] = [], minSize: Int64? = nil, maxSize: Int64? = nil, modifiedAfter: Date? = nil, modifiedBefore: Date? = nil) {
        self.rules = rules
        self.minSize = minSize
        self.maxSize = maxSize
        self.modifiedAfter = modifiedAfter
        self.modifiedBefore = modifiedBefore
    }

    /// True when the filter takes every file.
    public var isEmpty: Bool {
        rules.isEmpty && minSize == nil && maxSize == nil && modifiedAfter == nil && modifiedBefore == nil && maxAge == nil
            && minAge == nil
    }

    /// The filter with its relative ages counted back from `now` (the later bound wins where both kinds are given).
    public func anchored(at now: Date) -> FileFilter {
        var filter = self
        if let maxAge {
            let bound = now.addingTimeInterval(-maxAge)
            filter.modifiedAfter = modifiedAfter.map { max($0, bound) } ?? bound
            filter.maxAge = nil
        }
        if let minAge {
            let bound = now.addingTimeInterval(-minAge)
            filter.modifiedBefore = modifiedBefore.map { min($0, bound) } ?? bound
            filter.minAge = nil
        }
        return filter
    }

    /// The verdict on the path alone (rules), before the file's size and age are known.
    public func verdict(path: String) -> Verdict {
        for rule in rules where rule.pattern.matches(path) {
            return rule.include ? .take : .skip("excluded by \(rule.origin)")
        }
        return .take
    }

    /// The verdict on a file: rules first, then size, then age.
    public func verdict(path: String, size: Int64, modified: Date) -> Verdict {
        if case .skip(let reason) = verdict(path: path) { return .skip(reason) }
        if let minSize, size < minSize { return .skip("smaller than --min-size (\(size) bytes)") }
        if let maxSize, size > maxSize { return .skip("larger than --max-size (\(size) bytes)") }
        if let modifiedAfter, modified < modifiedAfter { return .skip("older than --max-age") }
        if let modifiedBefore, modified > modifiedBefore { return .skip("newer than --min-age") }
        return .take
    }

    /// Whether a walk must read the directory at `path` (relative to the root): false only when the first rule
    /// that could decide anything below it is an exclusion of the directory itself (`- tmp/**`, `- /cache/`). An
    /// include rule before it might take a file below, so the directory is read then.
    public func descends(into path: String) -> Bool {
        for rule in rules {
            if rule.include { return true }
            if let prefix = rule.pattern.directoryPrefix, prefix.matches(path) { return false }
        }
        return true
    }
}
