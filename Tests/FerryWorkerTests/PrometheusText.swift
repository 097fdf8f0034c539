import Foundation

/// A scrape of `/metrics`, parsed: samples by name and labels, and the `# HELP` / `# TYPE` lines.
struct PrometheusText {
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    let text: String
    var samples: [Sample] = []
    var help: [String: String] = [:]
    var types: [String: String] = [:]

    init(_ text: String) {
        self.text = text
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("# HELP ") {
                let rest = line.dropFirst(7)
                let name = rest.prefix { $0 != " " }
                help[String(name)] = String(rest.dropFirst(name.count + 1))
            } else if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                if parts.count == 4 { types[String(parts[2])] = String(parts[3]) }
            } else if !line.hasPrefix("#"), let sample = Self.sample(line) {
                samples.append(sample)
            }
        }
    }

    /// `name{a="x",b="y"} 1.5` (label values here never hold quotes or commas).
    static func sample(_ line: String) -> Sample? {
        guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { return nil }
        let series = line[..<space]
        guard let brace = series.firstIndex(of: "{") else {
            return Sample(name: String(series), labels: [:], value: value)
        }
        var labels = [String: String]()
        for pair in series[series.index(after: brace)..<series.index(before: series.endIndex)].split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
        }
        return Sample(name: String(series[..<brace]), labels: labels, value: value)
    }

    /// The value of the one series with exactly these labels; nil when it is not exported.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// Metric families: names from the `# TYPE` lines.
    var families: [String] { types.keys.sorted() }
}
