package import Mappings
package import Testing

/// Loads in-memory `.mappings` files; the roots default to `main.mappings`.
package func load(
    _ files: [String: String], roots: [String] = ["main.mappings"], traits: Traits = Traits()
) throws(MappingsError) -> Catalog {
    try Catalog.load(roots, from: .memory(files), traits: traits, transformers: testTransformers)
}

/// Transformers the language tests name: identities under a few class names.
package let testTransformers: TransformerRegistry = {
    var registry = TransformerRegistry()
    for (className, selector) in [("T", "f"), ("Geo", "coordinate"), ("Text", "upper")] {
        registry.register(className: className, selector: selector) { value, _ in value }
    }
    return registry
}()

/// Loads a single file named `main.mappings`.
package func load(_ text: String, traits: Traits = Traits()) throws(MappingsError) -> Catalog {
    try load(["main.mappings": text], traits: traits)
}

/// The rendered diagnostics of a load that must fail; records an issue when it succeeds.
package func failure(
    _ files: [String: String], roots: [String] = ["main.mappings"], traits: Traits = Traits(),
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> String {
    do {
        _ = try load(files, roots: roots, traits: traits)
        Issue.record("the load succeeded, but it was expected to fail", sourceLocation: sourceLocation)
        return ""
    } catch {
        return error.description
    }
}

/// The rendered diagnostics of loading `main.mappings` with this text.
package func failure(
    _ text: String, traits: Traits = Traits(), sourceLocation: Testing.SourceLocation = #_sourceLocation
)
    -> String
{
    failure(["main.mappings": text], traits: traits, sourceLocation: sourceLocation)
}

/// Models shared by many tests.
package let twitterModels = """
    "@models": {
        "UserModel": { "name": "String", "imageUrl": "URL?" },
        "TweetModel": { "user": "UserModel", "message": "String", "retweets": "Int", "tags": "[String]",
                        "createdAt": "Date?", "extra": "JSON" }
    }
    """
