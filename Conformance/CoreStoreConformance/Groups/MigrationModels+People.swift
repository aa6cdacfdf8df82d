import Foundation
import CoreStore

/// Model version "V1" of the people of the `migrations` group: people with pets, pets with a
/// vet and toys.
enum PeopleV1 {
    final class Person: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
        @Field.Stored("age") var age: Int = 0
        @Field.Stored("nickname") var nickname: String?
        @Field.Stored("legacyCode") var legacyCode: String = ""
        @Field.Stored("email") var email: String = ""
        @Field.Relationship("pets", inverse: \Pet.$owner) var pets: Set<Pet>
    }

    final class Pet: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
        @Field.Relationship("owner") var owner: Person?
        @Field.Relationship("vet") var vet: Vet?
        @Field.Relationship("toys", inverse: \Toy.$pet) var toys: Set<Toy>
    }

    final class Vet: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
        @Field.Relationship("patients", inverse: \Pet.$vet) var patients: Set<Pet>
    }

    final class Toy: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
        @Field.Relationship("pet") var pet: Pet?
    }

    static func schema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V1", entities: [
            Entity<Person>("Person"), Entity<Pet>("Pet"), Entity<Vet>("Vet"), Entity<Toy>("Toy"),
        ])
    }
}

/// Model version "V2", inferable from "V1": `legacyCode` removed, `email` renamed `contact`,
/// `nickname` no longer optional (default `"none"`), `score` (default 1.5) and `note` (optional)
/// added; `Pet.vet` renamed `doctor` (its inverse kept), `Pet.toys`/`Toy.pet` removed,
/// `Person.vets`/`Vet.clients` added; an index on `age` and a unique constraint on `contact`.
enum PeopleV2 {
    final class Person: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
        @Field.Stored("age") var age: Int = 0
        @Field.Stored("nickname") var nickname: String = "none"
        @Field.Stored("contact", previousVersionKeyPath: "email") var contact: String = ""
        @Field.Stored("score") var score: Double = 1.5
        @Field.Stored("note") var note: String?
        @Field.Relationship("pets", inverse: \Pet.$owner) var pets: Set<Pet>
        @Field.Relationship("vets") var vets: Set<Vet>
    }

    final class Pet: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
        @Field.Relationship("owner") var owner: Person?
        @Field.Relationship("doctor", previousVersionKeyPath: "vet") var doctor: Vet?
    }

    final class Vet: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
        @Field.Relationship("patients", inverse: \Pet.$doctor) var patients: Set<Pet>
        @Field.Relationship("clients", inverse: \Person.$vets) var clients: Set<Person>
    }

    final class Toy: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
    }

    static func schema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V2", entities: [
            Entity<Person>("Person", indexes: [[\Person.$age]], uniqueConstraints: [[\Person.$contact]]),
            Entity<Pet>("Pet"), Entity<Vet>("Vet"), Entity<Toy>("Toy"),
        ])
    }
}

/// Model version "V3", which needs a custom mapping from "V2": `Vet` becomes `Doctor`
/// (`.copyEntity`), `Person.displayName` is new (a transformer computes it), `Tag` is new.
enum PeopleV3 {
    final class Person: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
        @Field.Stored("age") var age: Int = 0
        @Field.Stored("nickname") var nickname: String = "none"
        @Field.Stored("contact") var contact: String = ""
        @Field.Stored("score") var score: Double = 1.5
        @Field.Stored("note") var note: String?
        @Field.Stored("displayName") var displayName: String = ""
        @Field.Relationship("pets", inverse: \Pet.$owner) var pets: Set<Pet>
        @Field.Relationship("vets") var vets: Set<Doctor>
    }

    final class Pet: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
        @Field.Relationship("owner") var owner: Person?
        @Field.Relationship("doctor") var doctor: Doctor?
    }

    final class Doctor: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
        @Field.Relationship("patients", inverse: \Pet.$doctor) var patients: Set<Pet>
        @Field.Relationship("clients", inverse: \Person.$vets) var clients: Set<Person>
    }

    final class Toy: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
    }

    final class Tag: CoreStoreObject {
        @Field.Stored("label") var label: String = ""
    }

    static func schema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V3", entities: [
            Entity<Person>("Person", indexes: [[\Person.$age]], uniqueConstraints: [[\Person.$contact]]),
            Entity<Pet>("Pet"), Entity<Doctor>("Doctor"), Entity<Toy>("Toy"), Entity<Tag>("Tag"),
        ])
    }
}

/// The people every migration case starts from, written through a stack of "V1" or "V2".
///
/// | person | age | nickname | email / contact | pets (vet) | vets (V2) |
/// |---|---|---|---|---|---|
/// | Ann | 34 | Annie | ann@x | Rex (Dr. Who; toys Ball, Rope), Fido | Dr. Who |
/// | Bob | 15 | – | bob@x | Tom (Dr. Who; toy Mouse) | Dr. Who, Dr. No |
/// | Cid | 52 | – | cid@x | – | – |
///
/// Toy Stick belongs to no pet. In "V2", Ann's note is "vip" and the scores are 3, 1 and 2.
enum PeopleSeed {
    static func writeV1(_ stack: DataStack) throws {
        try stack.perform(synchronous: { t in
            let who = t.create(Into<PeopleV1.Vet>()); who.name = "Dr. Who"
            let no = t.create(Into<PeopleV1.Vet>()); no.name = "Dr. No"
            func person(_ name: String, _ age: Int, _ nickname: String?, _ legacy: String) -> PeopleV1.Person {
                let p = t.create(Into<PeopleV1.Person>())
                p.name = name; p.age = age; p.nickname = nickname; p.legacyCode = legacy
                p.email = name.lowercased() + "@x"
                return p
            }
            let ann = person("Ann", 34, "Annie", "L1"), bob = person("Bob", 15, nil, "L2")
            _ = person("Cid", 52, nil, "L3")
            func pet(_ name: String, _ owner: PeopleV1.Person, _ vet: PeopleV1.Vet?) -> PeopleV1.Pet {
                let p = t.create(Into<PeopleV1.Pet>())
                p.name = name; p.owner = owner; p.vet = vet
                return p
            }
            let rex = pet("Rex", ann, who), tom = pet("Tom", bob, who)
            _ = pet("Fido", ann, nil)
            for (name, owner) in [("Ball", rex), ("Rope", rex), ("Mouse", tom), ("Stick", nil)] as [(String, PeopleV1.Pet?)] {
                let toy = t.create(Into<PeopleV1.Toy>())
                toy.name = name; toy.pet = owner
            }
            _ = no
        })
    }

    static func writeV2(_ stack: DataStack) throws {
        try stack.perform(synchronous: { t in
            let who = t.create(Into<PeopleV2.Vet>()); who.name = "Dr. Who"
            let no = t.create(Into<PeopleV2.Vet>()); no.name = "Dr. No"
            func person(_ name: String, _ age: Int, _ nickname: String, _ score: Double, _ vets: Set<PeopleV2.Vet>) -> PeopleV2.Person {
                let p = t.create(Into<PeopleV2.Person>())
                p.name = name; p.age = age; p.nickname = nickname; p.score = score; p.vets = vets
                p.contact = name.lowercased() + "@x"
                return p
            }
            let ann = person("Ann", 34, "Annie", 3, [who]), bob = person("Bob", 15, "none", 1, [who, no])
            _ = person("Cid", 52, "none", 2, [])
            ann.note = "vip"
            for (name, owner, doctor) in [("Rex", ann, who), ("Tom", bob, who), ("Fido", ann, nil)] as [(String, PeopleV2.Person, PeopleV2.Vet?)] {
                let p = t.create(Into<PeopleV2.Pet>())
                p.name = name; p.owner = owner; p.doctor = doctor
            }
            for name in ["Ball", "Rope", "Mouse", "Stick"] { t.create(Into<PeopleV2.Toy>()).name = name }
        })
    }
}
