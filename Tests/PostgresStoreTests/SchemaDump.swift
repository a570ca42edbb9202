import Postgres

/// What a PostgreSQL schema holds, as text lines that compare: every column with its type,
/// nullability, default, identity and collation; every index, constraint, trigger and trigger
/// function with its definition as the server prints it.
struct SchemaDump: Equatable {
    let lines: [String]

    static func read(_ driver: StoreTestDriver, _ connection: PostgresConnection) throws -> SchemaDump {
        var lines: [String] = []
        for row in try driver.query(connection, """
            SELECT table_name::text AS t, column_name::text AS c, data_type::text AS type, is_nullable::text AS nullable,
                   coalesce(column_default::text, '') AS dflt, is_identity::text AS identity, coalesce(collation_name::text, '') AS collation
            FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
            """) {
            lines.append(["column", try row.text("t"), try row.text("c"), try row.text("type"), try row.text("nullable"),
                          try row.text("dflt"), try row.text("identity"), try row.text("collation")].joined(separator: " "))
        }
        for row in try driver.query(connection, """
            SELECT indexname::text AS name, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname
            """) {
            lines.append("index " + (try row.text("name")) + ": " + (try row.text("indexdef")))
        }
        for row in try driver.query(connection, """
            SELECT conrelid::regclass::text AS t, conname::text AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
            WHERE connamespace = current_schema()::regnamespace ORDER BY conrelid::regclass::text, conname
            """) {
            lines.append("constraint " + (try row.text("t")) + " " + (try row.text("name")) + ": " + (try row.text("def")))
        }
        for row in try driver.query(connection, """
            SELECT tgname::text AS name, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname
            """) {
            lines.append("trigger " + (try row.text("name")) + ": " + (try row.text("def")))
        }
        for row in try driver.query(connection, """
            SELECT proname::text AS name, prosrc FROM pg_proc WHERE pronamespace = current_schema()::regnamespace ORDER BY proname
            """) {
            lines.append("function " + (try row.text("name")) + ": " + (try row.text("prosrc")))
        }
        return SchemaDump(lines: lines)
    }
}
