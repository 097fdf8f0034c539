/// A failure of the chaos run itself (setup, a tool that would not start): not a finding about Ferry.
struct ChaosError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
