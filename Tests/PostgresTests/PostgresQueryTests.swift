import Testing
@testable import Postgres

/// Which statements the connection treats as a COMMIT (a COMMIT answered `ROLLBACK` is its
/// error `25P02`): told by the first word alone.
@Suite struct PostgresQueryTests {
    @Test func aCommitIsToldByItsFirstWordInEitherCase() {
        for sql in ["COMMIT", "commit", "Commit;", " \nEND", "end transaction", "COMMIT AND NO CHAIN", ";COMMIT"] {
            #expect(PostgresQuery(sql).isCommit, "\(sql)")
        }
        #expect(PostgresQuery.commit.isCommit)
    }

    @Test func anotherStatementIsNoCommitWhereverTheWordStands() {
        let others = ["COMMITTED", "ENDS", "COMMI", "SELECT 'COMMIT'", "ROLLBACK", "BEGIN; COMMIT", "", " ; ",
                      // Only ASCII letters: a dotless ı uppercases to I, and PostgreSQL takes it for no keyword.
                      "commıt"]
        for sql in others {
            #expect(!PostgresQuery(sql).isCommit, "\(sql)")
        }
        #expect(!PostgresQuery.rollback.isCommit)
        #expect(!PostgresQuery.releaseSavepoint("sp1").isCommit)
    }
}
