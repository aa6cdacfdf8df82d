import ArgumentParser

/// `corestore torture`: crash tests that kill the process while it changes a store.
struct TortureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "torture",
        abstract: "Kill a process while it changes a store, then check what the store holds.",
        subcommands: [
            TortureCommitsCommand.self, TortureMigrationsCommand.self, TorturePowerCommand.self, TortureDamageCommand.self,
            TortureSharedCommand.self,
            TortureChildCommand.self, CommitTortureChildCommand.self, TortureDamageChildCommand.self, TortureSharedChildCommand.self,
        ]
    )
}
