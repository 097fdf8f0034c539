/// The phases every run of ferry-chaos goes through, in order: set up, the chaos itself, the drain, the checks.
protocol ScenarioPhases: Actor {
    func prepare() async throws
    func chaos() async throws
    func drain() async throws
    func check() async throws -> [CheckResult]
}

extension ScenarioPhases {
    /// Runs the phases in order; the checks' results, or the first phase's error.
    func runPhases() async throws -> [CheckResult] {
        try await prepare()
        try await chaos()
        try await drain()
        return try await check()
    }
}
