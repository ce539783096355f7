import Foundation
import MappingsSQL
import Testing

@Suite("SQL tables of contexts")
struct SQLTableTests {
    @Test(
        "property names become snake_case columns",
        arguments: [
            ("createdAt", "created_at"), ("HTTPStatus", "http_status"), ("user_id", "user_id"), ("id", "id"),
            ("userID", "user_id"), ("x2Y", "x2_y"),
        ])
    func snakeCase(name: String, column: String) {
        #expect(SQLTable.snakeCase(name) == column)
    }
}
