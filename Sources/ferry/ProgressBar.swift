import Foundation

/// Shows how a wait is going. On a terminal: one line redrawn in place (`\r`), at most ten times a second, with
/// a bar, jobs and bytes done of total, rate and ETA. Otherwise (a file or pipe): a plain line at the start,
/// every `lineInterval`, and at the end, so logs stay readable.
struct ProgressBar {
    enum Style {
        /// Redraw one line in place (stdout is a terminal).
        case live
        /// Print plain lines (stdout is a file or pipe).
        case lines
    }

    let style: Style
    let output: TerminalOutput
    /// Time between plain lines.
    let lineInterval: Duration
    private var rates = RateEstimator()
    private var lastShown: ContinuousClock.Instant?

    init(style: Style, output: TerminalOutput, lineInterval: Duration = .seconds(2)) {
        self.style = style
        self.output = output
        self.lineInterval = lineInterval
    }

    /// How often the caller should re-read the state so the display stays current.
    var refreshInterval: Duration {
        style == .live ? .milliseconds(500) : lineInterval
    }

    /// Records a reading (with the transfers in flight and, while nothing runs, why) and shows it if it is time
    /// to (always for the first one).
    mutating func show(_ snapshot: WaitSnapshot, inFlight: [InFlightFiles.File] = [], stall: String? = nil, at now: ContinuousClock.Instant) {
        rates.add(at: now, bytes: snapshot.bytesDone, jobs: snapshot.jobsFinished)
        let minimumGap = style == .live ? Duration.milliseconds(100) : lineInterval
        if let lastShown, now - lastShown < minimumGap { return }
        draw(snapshot, inFlight: inFlight, stall: stall, at: now)
    }

    /// Shows the final state and ends the line.
    mutating func finish(_ snapshot: WaitSnapshot, at now: ContinuousClock.Instant) {
        rates.add(at: now, bytes: snapshot.bytesDone, jobs: snapshot.jobsFinished)
        draw(snapshot, inFlight: [], stall: nil, at: now)
        output.endLine()
    }

    private mutating func draw(_ snapshot: WaitSnapshot, inFlight: [InFlightFiles.File], stall: String?, at now: ContinuousClock.Instant) {
        lastShown = now
        let width = output.columns - 1
        let files = inFlight.prefix(InFlightFiles.shown).map { InFlightFiles.line($0, width: width) }
            + (inFlight.count > InFlightFiles.shown ? ["  … and \(inFlight.count - InFlightFiles.shown) more running"] : [])
        switch style {
        case .live:
            let waiting = stall.map { [String("  waiting: \($0)".prefix(max(1, width)))] } ?? []
            output.redraw(block: [Self.liveLine(snapshot, rates: rates, width: width)] + files + waiting)
        case .lines:
            output.line(Self.plainLine(snapshot, rates: rates) + (stall.map { "; waiting: \($0)" } ?? ""))
            for file in files { output.line(file) }
        }
    }

    /// Columns kept for the text after the bar.
    static let textRoom = 64

    /// `batch trip [#######-------]  3/5 jobs  12.3 MiB/20.0 MiB  1.2 MiB/s  ETA 7s`, fitted to `width`.
    static func liveLine(_ snapshot: WaitSnapshot, rates: RateEstimator, width: Int) -> String {
        var parts = ["\(snapshot.jobsFinished)/\(snapshot.jobs) jobs"]
        if snapshot.unsuccessful > 0 { parts.append("\(snapshot.unsuccessful) failed") }
        parts.append(bytes(snapshot))
        if let rate = rate(rates) { parts.append(rate) }
        if let eta = eta(snapshot, rates: rates) { parts.append(eta) }
        let text = parts.joined(separator: "  ")
        let label = snapshot.label.count > 40 ? String(snapshot.label.prefix(39)) + "…" : snapshot.label
        // The bar's width depends only on the terminal and the label, never on the text beside it, so it does not
        // jump between redraws: up to 40 cells, leaving `textRoom` for the text (cut if longer). On a narrow
        // terminal the bar goes first.
        let cells = min(40, width - label.count - 5 - Self.textRoom)
        guard cells >= 10 else { return String((label + "  " + text).prefix(max(1, width))) }
        let filled = Int((min(1, max(0, snapshot.fraction)) * Double(cells)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: cells - filled)
        return String("\(label) [\(bar)]  \(text)".prefix(width))
    }

    /// `batch trip: 3/5 jobs finished (1 failed), 2 running, 12.3 MiB of 20.0 MiB, 1.2 MiB/s, ETA 7s`.
    static func plainLine(_ snapshot: WaitSnapshot, rates: RateEstimator) -> String {
        var text = "\(snapshot.label): \(snapshot.jobsFinished)/\(snapshot.jobs) jobs finished"
        if snapshot.unsuccessful > 0 {
            text += " (\(snapshot.unsuccessfulCounts))"
        }
        text += ", \(snapshot.running) running, " + bytes(snapshot, separator: " of ")
        if let rate = rate(rates) { text += ", \(rate)" }
        if let eta = eta(snapshot, rates: rates) { text += ", \(eta)" }
        return text
    }

    /// Bytes done of the total; a total missing some sizes is marked partial (`20.0 MiB+`) and says how many. Done
    /// is never shown above a total: once it passes one (files of unknown size moved more, or a file grew) the
    /// total is no longer worth showing, and what is known is said instead.
    static func bytes(_ snapshot: WaitSnapshot, separator: String = "/") -> String {
        let unknown = snapshot.sizesUnknown > 0 && snapshot.jobs > 1
            ? " (\(snapshot.sizesUnknown) size\(snapshot.sizesUnknown == 1 ? "" : "s") unknown)" : ""
        let done = TablePrinter.bytes(snapshot.bytesDone)
        guard let total = snapshot.bytesTotal, total > 0 || snapshot.sizesUnknown == 0 else { return done + unknown }
        if snapshot.bytesDone > total {
            return done + (snapshot.sizesUnknown > 0 ? unknown : " (more than the \(TablePrinter.bytes(total)) expected)")
        }
        let partial = snapshot.sizesUnknown > 0 ? "+" : ""
        return done + separator + TablePrinter.bytes(total) + partial + unknown
    }

    /// Bytes per second when bytes move, else jobs per second.
    static func rate(_ rates: RateEstimator) -> String? {
        if let bytes = rates.bytesPerSecond, bytes > 0 { return TablePrinter.bytes(Int64(bytes)) + "/s" }
        if let jobs = rates.jobsPerSecond { return String(format: "%.1f jobs/s", jobs) }
        return nil
    }

    /// Time left at the current rates (`ETA 7s`): the longer of what the remaining bytes take at the byte rate
    /// (when every size is known) and what the remaining jobs take at the job rate. Many small files are bound by
    /// jobs (each costs a commit), a few big ones by bytes; taking the binding one keeps the figure steady as the
    /// mix changes. Until the rates span `etaAfter`, or while sizes are unknown and nothing finished, or nothing
    /// moves, it says that it does not know yet rather than guess.
    static func eta(_ snapshot: WaitSnapshot, rates: RateEstimator) -> String? {
        if snapshot.finished { return nil }
        guard rates.span >= etaAfter else { return "ETA unknown yet (measuring)" }
        if snapshot.sizesUnknown > 0 && snapshot.jobsFinished == 0 {
            return "ETA unknown until a job finishes (\(snapshot.sizesUnknown) size\(snapshot.sizesUnknown == 1 ? "" : "s") unknown)"
        }
        var estimates = [Double]()
        if snapshot.sizesUnknown == 0, let total = snapshot.bytesTotal, let rate = rates.bytesPerSecond, rate > 0 {
            estimates.append(Double(max(0, total - snapshot.bytesDone)) / rate)
        }
        if let rate = rates.jobsPerSecond, rate > 0 {
            estimates.append(Double(snapshot.jobs - snapshot.jobsFinished) / rate)
        }
        return estimates.max().map { "ETA " + duration($0) } ?? "ETA unknown (nothing moving)"
    }

    /// How long the rates must have been watched before an ETA is given: a first reading's rate (one burst, or
    /// files still opening) made a 42 s batch show 10 s.
    static let etaAfter = Duration.seconds(3)

    /// `42s`, `3m07s`, `2h05m`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return String(format: "%dm%02ds", whole / 60, whole % 60) }
        if whole < 100 * 3600 { return String(format: "%dh%02dm", whole / 3600, (whole % 3600) / 60) }
        return ">99h"
    }
}
