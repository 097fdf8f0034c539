import ArgumentParser
import FerryCore
import Foundation

/// The file filter flags: of upload trees, folder fetches and copies (through ``TreeFlags``), and of listings and
/// comparisons (`ferry ls`, `ferry check`), which judge remote entries by the same rules.
struct FilterFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Take only files matching GLOB (repeatable; everything else is left out). See docs/cli.md for the rules.", valueName: "glob"))
    var include: [String] = []

    @Option(help: ArgumentHelp("Leave out files matching GLOB (repeatable); a directory pattern (dir/** or dir/) is not read at all.", valueName: "glob"))
    var exclude: [String] = []

    @Option(name: .customLong("filter-from"), help: ArgumentHelp("Rules from FILE, one per line: + GLOB takes, - GLOB leaves out, first match wins; # comments.", valueName: "file"),
        completion: .file())
    var filterFrom: [String] = []

    @Option(name: .customLong("min-size"), help: ArgumentHelp("Leave out files smaller than SIZE (100k, 5M, 1G: binary units; a bare number is KiB).", valueName: "size"))
    var minSize: String?

    @Option(name: .customLong("max-size"), help: ArgumentHelp("Leave out files larger than SIZE.", valueName: "size"))
    var maxSize: String?

    @Option(name: .customLong("max-age"), help: ArgumentHelp("Leave out files modified longer ago than AGE (30m, 2h, 7d, 1w) or before a date (2026-01-31).", valueName: "age"))
    var maxAge: String?

    @Option(name: .customLong("min-age"), help: ArgumentHelp("Leave out files modified more recently than AGE, or after a date.", valueName: "age"))
    var minAge: String?

    /// True when any filter was given (filters apply to upload trees and `--format lines` uploads only).
    var filters: Bool {
        !include.isEmpty || !exclude.isEmpty || !filterFrom.isEmpty || minSize != nil || maxSize != nil || maxAge != nil || minAge != nil
    }

    /// The filter the flags describe. Bad values are usage errors (exit 64) naming the flag and the fix.
    func fileFilter(now: Date, relativeAges: Bool = false) throws -> FileFilter {
        var filter = FileFilter()
        func pattern(_ text: String, flag: String) throws -> GlobPattern {
            do throws(GlobPattern.SyntaxError) {
                return try GlobPattern(text)
            } catch {
                throw CLIUsageError(message: "\(flag) '\(text)': \(error.problem); \(error.fix)")
            }
        }
        // rclone's order: --include rules, then --exclude, then --filter-from; any --include leaves out the rest.
        for text in include { filter.rules.append(.init(include: true, pattern: try pattern(text, flag: "--include"), origin: "--include '\(text)'")) }
        for text in exclude { filter.rules.append(.init(include: false, pattern: try pattern(text, flag: "--exclude"), origin: "--exclude '\(text)'")) }
        for file in filterFrom {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw CLIUsageError(message: "--filter-from \(file): cannot read the file; check the path and permissions")
            }
            do throws(ValidationIssue) {
                filter.rules += try FileFilter.rules(fromFilterFile: text, name: file)
            } catch {
                throw CLIUsageError(message: "\(error.field) \(error.problem); \(error.fix)")
            }
        }
        if !include.isEmpty {
            filter.rules.append(.init(include: false, pattern: try pattern("**", flag: "--include"), origin: "--include (files matching no --include)"))
        }
        do throws(ValidationIssue) {
            try filter.checkBounds()
        } catch {
            throw CLIUsageError(message: "\(error.problem); \(error.fix)")
        }
        func size(_ text: String?, flag: String) throws -> Int64? {
            guard let text else { return nil }
            guard let value = FileFilter.parseSize(text) else {
                throw CLIUsageError(message: "\(flag) '\(text)' is not a size; write a number with an optional unit: 100k, 5M, 1.5G (binary units; a bare number is KiB)")
            }
            return value
        }
        func age(_ text: String?, flag: String) throws -> Date? {
            guard let text else { return nil }
            guard let value = FileFilter.parseAgeLimit(text, now: now) else {
                if let seconds = FileFilter.parseDuration(text), !(seconds <= FileFilter.longestAge) {
                    throw CLIUsageError(message: "\(flag) '\(text)' is longer than 10000 years; give a shorter age (such as 7d or 100y) or a date, or leave \(flag) out to take files of any age")
                }
                throw CLIUsageError(message: "\(flag) '\(text)' is not an age; write a duration such as 30m, 2h, 7d, 2w, or a date such as 2026-01-31")
            }
            return value
        }
        filter.minSize = try size(minSize, flag: "--min-size")
        filter.maxSize = try size(maxSize, flag: "--max-size")
        filter.modifiedAfter = try age(maxAge, flag: "--max-age")
        filter.modifiedBefore = try age(minAge, flag: "--min-age")
        if relativeAges {
            // Checked above as ages; a span is kept as one.
            if let text = maxAge, let span = FileFilter.parseDuration(text) { (filter.maxAge, filter.modifiedAfter) = (span, nil) }
            if let text = minAge, let span = FileFilter.parseDuration(text) { (filter.minAge, filter.modifiedBefore) = (span, nil) }
        }
        if let low = filter.minSize, let high = filter.maxSize, low > high {
            throw CLIUsageError(message: "--min-size is larger than --max-size: no file could pass; swap or correct them")
        }
        return filter
    }
}
