package import MappingsCompiler
import MappingsEncoding
package import MappingsEngine
package import MappingsJSON

extension Catalog {
    /// The Spark `StructType` (its JSON form, as `StructType.fromJson` and `DataType.fromJson`
    /// read it) of what mapping with `context` writes: `mappings schema --format spark`, and the
    /// layout of the rows `stream --spark-frames` writes. Dates are timestamps, URLs and UUIDs
    /// strings, decimals strings keeping every digit (marked `{"mappings.type": "Decimal"}`),
    /// dictionaries maps; a model nested in itself is a string of JSON text.
    package func sparkSchema(of context: CompiledContext) -> JSONValue {
        var writer = SparkSchemaWriter(catalog: self)
        return writer.schema(ofContext: context.index)
    }
}

/// A record's output as `mappings stream --spark-frames` writes it: a frame (`SparkFrame.record`:
/// its length, its kind) holding the record's Spark row.
extension SparkRowEncoder: RecordEncoding {
    package var target: String { "the context's Spark schema" }

    package func encodeRecord(_ json: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) throws(RecordEncodingFailure)
    {
        do throws(EncodingFailure) {
            try SparkFrame.append(.record, into: &out) { (out: inout [UInt8]) throws(EncodingFailure) in
                try encode(json, into: &out)
            }
        } catch {
            throw RecordEncodingFailure(message: error.message)
        }
    }
}
