import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import MappingsMacrosPlugin

/// What `@MappedModel`, `@MappedProperty` and `@MappedIgnored` expand to, and every refusal
/// with its fix-it, through swift-syntax's macro test support.
@Suite("@MappedModel expansions")
struct MappedModelExpansionTests {
    static let macros: [String: MacroSpec] = [
        "MappedModel": MacroSpec(type: MappedModelMacro.self, conformances: ["MappedModel"]),
        "MappedProperty": MacroSpec(type: MappedPropertyMacro.self),
        "MappedIgnored": MacroSpec(type: MappedIgnoredMacro.self),
    ]

    /// `assertMacroExpansion` with the macros above, failures recorded as Swift Testing issues.
    func expect(
        _ source: String, expands expanded: String, diagnostics: [DiagnosticSpec] = [], fixed: String? = nil,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        assertMacroExpansion(
            source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: Self.macros,
            applyFixIts: fixed == nil ? nil : diagnostics.flatMap { $0.fixIts.map(\.message) }, fixedSource: fixed,
            failureHandler: { failure in
                Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
            })
    }

    @Test("every stored var in declaration order; static, computed, constants and ignored ones left out")
    func storedProperties() {
        expect(
            """
            @MappedModel("TweetModel")
            struct Tweet {
                var identifier = ""
                @MappedProperty("message") var text: String = ""
                var user = User()
                var createdAt: Date?
                var tags: [String] = [] {
                    didSet { changed = true }
                }
                var `default`: Int = 0
                var retweets = 0, likes = 0
                @MappedIgnored var changed = false
                let kind = "tweet"
                var shout: String { text.uppercased() }
                static var shared = Tweet()
                func show() {}
            }
            """,
            expands: """
                struct Tweet {
                    var identifier = ""
                    var text: String = ""
                    var user = User()
                    var createdAt: Date?
                    var tags: [String] = [] {
                        didSet { changed = true }
                    }
                    var `default`: Int = 0
                    var retweets = 0, likes = 0
                    var changed = false
                    let kind = "tweet"
                    var shout: String { text.uppercased() }
                    static var shared = Tweet()
                    func show() {}
                }

                extension Tweet: MappedModel {
                    static let mapping = TypedModel<Tweet>(
                        "TweetModel", make: {
                            Tweet()
                        }, fileID: "TestModule/test.swift", filePath: "test.swift", line: 1
                    ) { bindings in
                        bindings.bind("identifier", \\Tweet.identifier, line: 3) {
                            TypedModel<Tweet>.Bindings.set(&$0.identifier, from: $1, failures: &$2)
                        }
                        bindings.bind("message", \\Tweet.text, line: 4) {
                            TypedModel<Tweet>.Bindings.set(&$0.text, from: $1, failures: &$2)
                        }
                        bindings.bind("user", \\Tweet.user, line: 5) {
                            TypedModel<Tweet>.Bindings.set(&$0.user, from: $1, failures: &$2)
                        }
                        bindings.bind("createdAt", \\Tweet.createdAt, line: 6) {
                            TypedModel<Tweet>.Bindings.set(&$0.createdAt, from: $1, failures: &$2)
                        }
                        bindings.bind("tags", \\Tweet.tags, line: 7) {
                            TypedModel<Tweet>.Bindings.set(&$0.tags, from: $1, failures: &$2)
                        }
                        bindings.bind("default", \\Tweet.`default`, line: 10) {
                            TypedModel<Tweet>.Bindings.set(&$0.`default`, from: $1, failures: &$2)
                        }
                        bindings.bind("retweets", \\Tweet.retweets, line: 11) {
                            TypedModel<Tweet>.Bindings.set(&$0.retweets, from: $1, failures: &$2)
                        }
                        bindings.bind("likes", \\Tweet.likes, line: 11) {
                            TypedModel<Tweet>.Bindings.set(&$0.likes, from: $1, failures: &$2)
                        }
                    }
                }
                """)
    }

    @Test("a public final class gets a public mapping; a declared init() makes the instance")
    func publicFinalClass() {
        expect(
            """
            @MappedModel("UserModel")
            public final class User {
                public var name: String
                public var imageUrl: URL?
                public init() { name = "" }
                public init(name: String) { self.name = name }
            }
            """,
            expands: """
                public final class User {
                    public var name: String
                    public var imageUrl: URL?
                    public init() { name = "" }
                    public init(name: String) { self.name = name }
                }

                extension User: MappedModel {
                    public static let mapping = TypedModel<User>(
                        "UserModel", make: {
                            User()
                        }, fileID: "TestModule/test.swift", filePath: "test.swift", line: 1
                    ) { bindings in
                        bindings.bind("name", \\User.name, line: 3) {
                            TypedModel<User>.Bindings.set(&$0.name, from: $1, failures: &$2)
                        }
                        bindings.bind("imageUrl", \\User.imageUrl, line: 4) {
                            TypedModel<User>.Bindings.set(&$0.imageUrl, from: $1, failures: &$2)
                        }
                    }
                }
                """)
    }

    @Test("a model without properties, its name repeated as written (escapes included)")
    func emptyModel() {
        expect(
            """
            @MappedModel("Empty \\"one\\"")
            struct Nothing {
            }
            """,
            expands: """
                struct Nothing {
                }

                extension Nothing: MappedModel {
                    static let mapping = TypedModel<Nothing>(
                        "Empty \\"one\\"", make: {
                            Nothing()
                        }, fileID: "TestModule/test.swift", filePath: "test.swift", line: 1
                    ) { _ in
                    }
                }
                """)
    }

    @Test("a let without a value is refused, with the fix-it that makes it a var")
    func letWithoutValue() {
        expect(
            """
            @MappedModel("M")
            struct M {
                let id: String
                init() { id = "" }
            }
            """,
            expands: """
                struct M {
                    let id: String
                    init() { id = "" }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "@MappedModel cannot bind `let id`: mapping sets a model property after `init()`; make it a `var`, or leave it out with @MappedIgnored",
                    line: 3, column: 5, fixIts: [FixItSpec(message: "make it a `var`")])
            ],
            fixed: """
                @MappedModel("M")
                struct M {
                    var id: String
                    init() { id = "" }
                }
                """)
    }

    @Test("a property without a value and no init() is refused, with the fix-it that gives it one")
    func noInit() {
        expect(
            """
            @MappedModel("M")
            struct M {
                var count: Int
                var names: [String]
                var when: Date
                var note: String?
            }
            """,
            expands: """
                struct M {
                    var count: Int
                    var names: [String]
                    var when: Date
                    var note: String?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "@MappedModel makes each M with `init()`, which needs an initial value for `count`: give it one, or declare `init()`",
                    line: 3, column: 9, fixIts: [FixItSpec(message: "give `count` the initial value `0`")]),
                DiagnosticSpec(
                    message:
                        "@MappedModel makes each M with `init()`, which needs an initial value for `names`: give it one, or declare `init()`",
                    line: 4, column: 9, fixIts: [FixItSpec(message: "give `names` the initial value `[]`")]),
                DiagnosticSpec(
                    message:
                        "@MappedModel makes each M with `init()`, which needs an initial value for `when`: give it one, or declare `init()`",
                    line: 5, column: 9),
            ],
            fixed: """
                @MappedModel("M")
                struct M {
                    var count: Int = 0
                    var names: [String] = []
                    var when: Date
                    var note: String?
                }
                """)
    }

    @Test("initializers that all take arguments are refused")
    func initializersWithArguments() {
        expect(
            """
            @MappedModel("M")
            struct M {
                var name = ""
                init(name: String) { self.name = name }
                init?(other: Int) { nil }
            }
            """,
            expands: """
                struct M {
                    var name = ""
                    init(name: String) { self.name = name }
                    init?(other: Int) { nil }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "@MappedModel makes each M with `init()`, and every initializer of the struct takes arguments: declare `init()` (giving each property a value)",
                    line: 1, column: 1)
            ])
    }

    @Test("types with no mapping type: a standard one gets the fix-it to the one to use, others @MappedIgnored")
    func unmappableTypes() {
        expect(
            """
            @MappedModel("M")
            struct M {
                var ratio: Float = 0
                var byName: [Int: String] = [:]
                var action: () -> Void = {}
                var anything: any Sendable = 1
            }
            """,
            expands: """
                struct M {
                    var ratio: Float = 0
                    var byName: [Int: String] = [:]
                    var action: () -> Void = {}
                    var anything: any Sendable = 1
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@MappedModel cannot bind `ratio`: `Float` has no mapping type; use `Double`",
                    line: 3, column: 16, fixIts: [FixItSpec(message: "use `Double`")]),
                DiagnosticSpec(
                    message:
                        "@MappedModel cannot bind `byName`: a dictionary maps from a JSON object, whose keys are `String`, not `Int`",
                    line: 4, column: 18, fixIts: [FixItSpec(message: "use `String`")]),
                DiagnosticSpec(
                    message: "@MappedModel cannot bind `action`: a function has no mapping type",
                    line: 5, column: 17, fixIts: [FixItSpec(message: "leave it out of the model with @MappedIgnored")]),
                DiagnosticSpec(
                    message: "@MappedModel cannot bind `anything`: an existential has no mapping type",
                    line: 6, column: 19, fixIts: [FixItSpec(message: "leave it out of the model with @MappedIgnored")]),
            ],
            fixed: """
                @MappedModel("M")
                struct M {
                    var ratio: Double = 0
                    var byName: [String: String] = [:]
                    @MappedIgnored var action: () -> Void = {}
                    @MappedIgnored var anything: any Sendable = 1
                }
                """)
    }

    @Test("lazy and weak properties are refused, with the fix-it that leaves them out")
    func lazyAndWeak() {
        expect(
            """
            @MappedModel("M")
            final class M {
                lazy var total = 0
                weak var owner: M?
            }
            """,
            expands: """
                final class M {
                    lazy var total = 0
                    weak var owner: M?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@MappedModel cannot bind a `lazy` property (`total`): leave it out with @MappedIgnored",
                    line: 3, column: 5, fixIts: [FixItSpec(message: "leave it out of the model with @MappedIgnored")]),
                DiagnosticSpec(
                    message: "@MappedModel cannot bind a `weak` property (`owner`): leave it out with @MappedIgnored",
                    line: 4, column: 5, fixIts: [FixItSpec(message: "leave it out of the model with @MappedIgnored")]),
            ],
            fixed: """
                @MappedModel("M")
                final class M {
                    @MappedIgnored lazy var total = 0
                    @MappedIgnored weak var owner: M?
                }
                """)
    }

    @Test("a class that is not final, an enum, an actor and a generic struct are refused")
    func declarationKinds() {
        expect(
            """
            @MappedModel("M")
            class M {
                var name = ""
            }
            """,
            expands: """
                class M {
                    var name = ""
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "@MappedModel binds a final class: a subclass would share its superclass's model and `init()`",
                    line: 2, column: 1, fixIts: [FixItSpec(message: "make the class final")])
            ],
            fixed: """
                @MappedModel("M")
                final class M {
                    var name = ""
                }
                """)
        expect(
            """
            @MappedModel("K")
            enum K {
                case a
            }
            """,
            expands: """
                enum K {
                    case a
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "@MappedModel applies to a struct or a final class, not to an enum (a MappableValue by its raw value, or a MappedUnion)",
                    line: 1, column: 1)
            ])
        expect(
            """
            @MappedModel("A")
            actor A {}
            """,
            expands: "actor A {}",
            diagnostics: [
                DiagnosticSpec(
                    message: "@MappedModel applies to a struct or a final class, not to an actor", line: 1, column: 1)
            ])
        expect(
            """
            @MappedModel("Page")
            struct Page<T> {
                var items: [T] = []
            }
            """,
            expands: """
                struct Page<T> {
                    var items: [T] = []
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "@MappedModel cannot bind a generic type: a model has one name and one set of property types; bind each specialization by hand with TypedModel",
                    line: 2, column: 12)
            ])
    }

    @Test("the model name is a plain non-empty string; two properties under one name are refused")
    func names() {
        expect(
            """
            @MappedModel("")
            struct M {}
            """,
            expands: "struct M {}",
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "@MappedModel's model name is a plain, non-empty string literal (contexts name it in \"@class\")",
                    line: 1, column: 14)
            ])
        expect(
            """
            @MappedModel("M")
            struct M {
                var name = ""
                @MappedProperty("name") var title = ""
            }
            """,
            expands: """
                struct M {
                    var name = ""
                    var title = ""
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "two properties of M are the model property \"name\"; rename one with @MappedProperty(\"…\")",
                    line: 4, column: 33, notes: [NoteSpec(message: "the first one", line: 3, column: 9)])
            ])
    }

    @Test("a type's own mapping, a tuple pattern and stored properties under #if are refused")
    func otherRefusals() {
        expect(
            """
            @MappedModel("M")
            struct M {
                var (a, b) = (1, 2)
                #if DEBUG
                var trace = ""
                #endif
                static let mapping = 1
            }
            """,
            expands: """
                struct M {
                    var (a, b) = (1, 2)
                    #if DEBUG
                    var trace = ""
                    #endif
                    static let mapping = 1
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "@MappedModel binds properties one name at a time: declare each of `(a, b)` with a `var` of its own",
                    line: 3, column: 9),
                DiagnosticSpec(
                    message:
                        "@MappedModel cannot tell which branch of `#if` builds: declare stored properties outside it, or bind the type by hand with TypedModel",
                    line: 5, column: 5),
                DiagnosticSpec(
                    message: "M declares its own `mapping`, which @MappedModel writes: remove one of them",
                    line: 7, column: 5),
            ])
    }

    @Test("@MappedProperty and @MappedIgnored say where they do not apply")
    func markers() {
        expect(
            """
            struct M {
                @MappedProperty("x") var computed: Int { 1 }
                @MappedIgnored static var shared = 0
                @MappedProperty("") var empty = 0
                @MappedIgnored func f() {}
            }
            """,
            expands: """
                struct M {
                    var computed: Int { 1 }
                    static var shared = 0
                    var empty = 0
                    func f() {}
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "@MappedProperty has no effect on a computed property: only stored properties are in the model",
                    line: 2, column: 5),
                DiagnosticSpec(
                    message: "@MappedIgnored has no effect on a static property: it is not in the model",
                    line: 3, column: 5),
                DiagnosticSpec(
                    message: "@MappedProperty's model property name is a plain, non-empty string literal",
                    line: 4, column: 21),
                DiagnosticSpec(
                    message: "@MappedIgnored applies to a stored property of a @MappedModel type", line: 5, column: 5),
            ])
    }
}
