import ArgumentParser

/// The `corestore` command-line tool.
@main
struct CoreStoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corestore",
        abstract: "CoreStore for Linux: typed models, transactions and queries over pluggable storage.",
        subcommands: [DemoCommand.self, InspectCommand.self, DumpCommand.self, CheckCommand.self, CopyCommand.self, LoadCommand.self, MigrateCommand.self, ConformanceCommand.self, TortureCommand.self],
        defaultSubcommand: DemoCommand.self
    )
}
