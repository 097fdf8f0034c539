import ArgumentParser

/// What most database commands take: `--json` and the connection options (`--database-url`, `--log-level`).
struct CommandOptions: ParsableArguments {
    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var connection: ConnectionOptions
}
