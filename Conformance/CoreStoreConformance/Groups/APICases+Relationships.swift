import Foundation
import CoreStore
import CoreStoreStorage

/// A team: members (nullify), badges (cascade), projects (deny) and an ordered lineup of at
/// most three members (no inverse).
final class ConformanceTeam: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("members", inverse: \ConformanceMember.$team) var members: Set<ConformanceMember>
    @Field.Relationship("badges", inverse: \ConformanceBadge.$team, deleteRule: .cascade) var badges: Set<ConformanceBadge>
    @Field.Relationship("projects", inverse: \ConformanceProject.$team, deleteRule: .deny) var projects: Set<ConformanceProject>
    @Field.Relationship("lineup", maxCount: 3) var lineup: [ConformanceMember]
}

/// A member of a team.
final class ConformanceMember: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("team") var team: ConformanceTeam?
}

/// A badge, deleted with its team.
final class ConformanceBadge: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("team") var team: ConformanceTeam?
}

/// A project, which keeps its team from being deleted.
final class ConformanceProject: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("team") var team: ConformanceTeam?
}

/// A squad must hold one or two players.
final class ConformanceSquad: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("players", minCount: 1, maxCount: 2) var players: Set<ConformanceMember>
}

extension APICases {
    static func teamsSchema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V1", entities: [
            Entity<ConformanceTeam>("Team"), Entity<ConformanceMember>("Member"), Entity<ConformanceBadge>("Badge"),
            Entity<ConformanceProject>("Project"), Entity<ConformanceSquad>("Squad"),
        ])
    }

    /// Team Red (members Ann and Bob, badge Gold, lineup [Bob, Ann]) and team Blue (member Cy,
    /// badge Silver, project Apollo).
    static func populateTeams(_ stack: DataStack) throws {
        try stack.perform(synchronous: { t in
            let red = t.create(Into<ConformanceTeam>()), blue = t.create(Into<ConformanceTeam>())
            (red.name, blue.name) = ("Red", "Blue")
            func member(_ name: String, _ team: ConformanceTeam) -> ConformanceMember {
                let m = t.create(Into<ConformanceMember>())
                m.name = name
                m.team = team
                return m
            }
            let ann = member("Ann", red), bob = member("Bob", red)
            _ = member("Cy", blue)
            red.lineup = [bob, ann]
            let gold = t.create(Into<ConformanceBadge>()), silver = t.create(Into<ConformanceBadge>())
            (gold.name, gold.team, silver.name, silver.team) = ("Gold", red, "Silver", blue)
            let apollo = t.create(Into<ConformanceProject>())
            (apollo.name, apollo.team) = ("Apollo", blue)
        })
    }

    static func team(_ stack: some FetchableSource, _ name: String) throws -> ConformanceTeam? {
        try stack.fetchOne(From<ConformanceTeam>().where(\.$name == name))
    }

    /// `name:team` of every member, by name.
    static func members(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<ConformanceMember>().orderBy(.ascending(\.$name))).map { "\($0.name):\($0.team?.name ?? "-")" }
    }

    static func isCountViolation(_ relationship: String, count: Int) -> (CoreStoreError) -> Bool {
        return { error in
            if case .relationshipCountViolation(_, let r, let c, _, _) = error { return r == relationship && c == count }
            return false
        }
    }

    static let relationshipCases: [ConformanceCase] = [
        c("nullify: deleting a team leaves its members without a team") { ctx in
            let (stack, _) = try makeStack(ctx, teamsSchema())
            try populateTeams(stack)
            try stack.perform(synchronous: { t in t.delete(try team(t, "Red")) })
            try ctx.expectEqual(try members(stack), ["Ann:-", "Bob:-", "Cy:Blue"], "members after deleting team Red")
            try ctx.expectEqual(try stack.fetchCount(From<ConformanceMember>().where(\.$team == nil)), 2, "members without a team")
        },
        c("cascade: deleting a team deletes its badges and only those") { ctx in
            let (stack, _) = try makeStack(ctx, teamsSchema())
            try populateTeams(stack)
            try stack.perform(synchronous: { t in t.delete(try team(t, "Red")) })
            try ctx.expectEqual(try stack.fetchAll(From<ConformanceBadge>()).map(\.name), ["Silver"], "badges left")
            try ctx.expectEqual(try team(stack, "Blue")?.badges.map(\.name), ["Silver"], "badges of team Blue")
        },
        c("deny: a team with a project is not deleted and nothing of the transaction is saved") { ctx in
            let (stack, _) = try makeStack(ctx, teamsSchema())
            try populateTeams(stack)
            try expectCoreStoreError(ctx, "deleting a team that has a project", matching: {
                if case .deleteDenied(let entity, let relationship) = $0 { return entity == "Team" && relationship == "projects" }
                return false
            }) {
                try stack.perform(synchronous: { t in
                    for member in try t.fetchAll(From<ConformanceMember>()) { member.name += "!" }
                    t.delete(try team(t, "Blue"))
                })
            }
            try ctx.expectEqual(try stack.fetchAll(From<ConformanceTeam>().orderBy(.ascending(\.$name))).map(\.name), ["Blue", "Red"], "teams after the denied delete")
            try ctx.expectEqual(try members(stack), ["Ann:Red", "Bob:Red", "Cy:Blue"], "members after the denied delete")
            try stack.perform(synchronous: { t in
                _ = try t.deleteAll(From<ConformanceProject>())
                t.delete(try team(t, "Blue"))
            })
            try ctx.expectEqual(try stack.fetchAll(From<ConformanceTeam>()).map(\.name), ["Red"], "teams once the project is gone")
        },
        c("maxCount: a lineup of four is a relationshipCountViolation and nothing is saved") { ctx in
            let (stack, _) = try makeStack(ctx, teamsSchema())
            try populateTeams(stack)
            try expectCoreStoreError(ctx, "a lineup of four members", matching: isCountViolation("lineup", count: 4)) {
                try stack.perform(synchronous: { t in
                    guard let red = try team(t, "Red") else { return }
                    let extra = (1...2).map { i -> ConformanceMember in
                        let m = t.create(Into<ConformanceMember>())
                        m.name = "Extra \(i)"
                        return m
                    }
                    red.lineup = red.lineup + extra
                })
            }
            try ctx.expectEqual(try members(stack), ["Ann:Red", "Bob:Red", "Cy:Blue"], "members after the violation")
            try ctx.expectEqual(try team(stack, "Red")?.lineup.map(\.name), ["Bob", "Ann"], "lineup after the violation")
        },
        c("minCount: a squad without players is a relationshipCountViolation and nothing is saved") { ctx in
            let (stack, _) = try makeStack(ctx, teamsSchema())
            try populateTeams(stack)
            let error = try expectCoreStoreError(ctx, "a squad without players", matching: isCountViolation("players", count: 0)) {
                try stack.perform(synchronous: { t in
                    t.create(Into<ConformanceSquad>()).name = "Empty"
                    t.create(Into<ConformanceTeam>()).name = "Green"
                })
            }
            guard case .relationshipCountViolation(let entity, _, _, let minimum, let maximum) = error else { return }
            try ctx.expectEqual([entity, "\(minimum)", "\(maximum)"], ["Squad", "1", "2"], "entity and bounds in the error")
            try ctx.expectEqual(try stack.fetchCount(From<ConformanceSquad>()), 0, "squads saved")
            try ctx.expectEqual(try stack.fetchCount(From<ConformanceTeam>()), 2, "teams saved")
            try stack.perform(synchronous: { t in
                let squad = t.create(Into<ConformanceSquad>())
                squad.players = Set(try t.fetchAll(From<ConformanceMember>().where(\.$name == "Cy")))
            })
            try ctx.expectEqual(try stack.fetchOne(From<ConformanceSquad>())?.players.map(\.name), ["Cy"], "players of the valid squad")
        },
        c("an ordered to-many keeps its order through commits") { ctx in
            let (stack, _) = try makeStack(ctx, teamsSchema())
            try populateTeams(stack)
            try ctx.expectEqual(try team(stack, "Red")?.lineup.map(\.name), ["Bob", "Ann"], "lineup as created")
            try stack.perform(synchronous: { t in
                guard let red = try team(t, "Red"), let cy = try t.fetchOne(From<ConformanceMember>().where(\.$name == "Cy")) else { return }
                red.lineup = [red.lineup[1], cy, red.lineup[0]]
            })
            try ctx.expectEqual(try team(stack, "Red")?.lineup.map(\.name), ["Ann", "Cy", "Bob"], "lineup after reordering")
        },
        c("an ordered to-many keeps its order after reopening the store", requires: .persistent) { ctx in
            let store = try populatedStore(ctx, teamsSchema()) { stack in
                try populateTeams(stack)
                try stack.perform(synchronous: { t in
                    guard let red = try team(t, "Red"), let cy = try t.fetchOne(From<ConformanceMember>().where(\.$name == "Cy")) else { return }
                    red.lineup = [cy] + red.lineup
                })
            }
            let stack = try reopenedStack(ctx, store, teamsSchema())
            try ctx.expectEqual(try team(stack, "Red")?.lineup.map(\.name), ["Cy", "Bob", "Ann"], "lineup after reopen")
            try ctx.expectEqual(try members(stack), ["Ann:Red", "Bob:Red", "Cy:Blue"], "members after reopen")
        },
        c("setting the to-one side keeps both sides of the inverse in step") { ctx in
            let (stack, _) = try makeStack(ctx, teamsSchema())
            try populateTeams(stack)
            let inside = try stack.perform(synchronous: { t -> [String] in
                guard let ann = try t.fetchOne(From<ConformanceMember>().where(\.$name == "Ann")), let blue = try team(t, "Blue"), let red = try team(t, "Red") else { return [] }
                ann.team = blue
                return [red.members.map(\.name).sorted().joined(separator: ","), blue.members.map(\.name).sorted().joined(separator: ",")]
            })
            try ctx.expectEqual(inside, ["Bob", "Ann,Cy"], "members of Red and Blue inside the transaction")
            try ctx.expectEqual(try team(stack, "Red")?.members.map(\.name).sorted(), ["Bob"], "members of Red after the commit")
            try ctx.expectEqual(try team(stack, "Blue")?.members.map(\.name).sorted(), ["Ann", "Cy"], "members of Blue after the commit")
            try ctx.expectEqual(try members(stack), ["Ann:Blue", "Bob:Red", "Cy:Blue"], "members after the commit")
        },
        c("setting the to-many side keeps both sides of the inverse in step") { ctx in
            let (stack, _) = try makeStack(ctx, teamsSchema())
            try populateTeams(stack)
            try stack.perform(synchronous: { t in
                guard let red = try team(t, "Red"), let blue = try team(t, "Blue") else { return }
                red.members = Set(red.members.filter { $0.name == "Ann" })
                blue.members = blue.members.union(try t.fetchAll(From<ConformanceMember>().where(\.$name == "Ann")))
            })
            try ctx.expectEqual(try members(stack), ["Ann:Blue", "Bob:-", "Cy:Blue"], "members after moving Ann to Blue and dropping Bob from Red")
            try ctx.expectEqual(try team(stack, "Red")?.members.count, 0, "members of Red")
            try ctx.expectEqual(try stack.fetchCount(From<ConformanceMember>().where(\.$team == nil)), 1, "members without a team")
        },
    ]
}
