/// What a run prints: a summary, then one line per check as a Markdown table.
struct ChaosReport: Sendable {
    let seed: UInt64
    let header: [String]
    let checks: [CheckResult]

    var passed: Bool { checks.allSatisfy(\.passed) }

    var text: String {
        var out = header
        out.append("| check | expected | found | |")
        out.append("|---|---|---|---|")
        for check in checks {
            out.append("| \(check.name) | \(check.expected) | \(check.found) | \(check.passed ? "ok" : "**FAIL**") |")
        }
        for check in checks where !check.details.isEmpty {
            out.append("")
            out.append("\(check.name):")
            for detail in check.details.prefix(15) { out.append("  - \(detail)") }
            if check.details.count > 15 { out.append("  - … and \(check.details.count - 15) more") }
        }
        out.append("")
        out.append(passed ? "PASS (seed \(seed))" : "FAIL (seed \(seed)): \(checks.filter { !$0.passed }.count) check(s) failed")
        return out.joined(separator: "\n")
    }
}
