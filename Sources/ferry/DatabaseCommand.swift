/// A command that takes `CommandOptions`: its `json` and `connection` read from there.
protocol DatabaseCommand {
    var common: CommandOptions { get }
}

extension DatabaseCommand {
    var json: Bool { common.json }
    var connection: ConnectionOptions { common.connection }
}
