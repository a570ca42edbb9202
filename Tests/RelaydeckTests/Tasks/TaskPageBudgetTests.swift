import Clock
@testable import Relaydeck
import Testing

/// A page of `GET /v1/tasks` holds `TaskFilter.byteBudget` bytes of tasks at most: it ends
/// early with a cursor, the cursors still give every task once, and a task larger than the
/// whole budget is listed on a page of its own.
@Suite struct TaskPageBudgetTests {
    static func store() async throws -> (TestStore, Principal, String) {
        let test = try TestStore(.memory)
        let (account, _, keys) = try await test.account(withKeys: 1)
        return (test, .account(accountID: account.id), keys[0].key.id)
    }

    @discardableResult
    static func make(_ test: TestStore, _ person: Principal, _ keyID: String, description: String, title: String) async throws -> WorkTask {
        let task = try await test.tasks.create(person, keyID: keyID, NewTask(title: checked(title, .taskTitle),
                                                                        description: checked(description, .taskDescription)), host: nil)
        test.clock.advance(millis: 1)
        return task
    }

    /// Every page, following the cursors.
    static func pages(_ test: TestStore, _ person: Principal, _ filter: TaskFilter) async throws -> [[WorkTask]] {
        var pages: [[WorkTask]] = []
        var cursor: TaskCursor?
        repeat {
            let (page, next) = try await test.tasks.list(person, filter, after: cursor)
            pages.append(page)
            cursor = next
        } while cursor != nil
        return pages
    }

    @Test func aPageEndsAtItsByteBudgetAndTheCursorsGiveEveryTaskOnce() async throws {
        let (test, person, keyID) = try await Self.store()
        var ids: [String] = []
        for index in 0..<30 {
            ids.append(try await Self.make(test, person, keyID, description: String(repeating: "d", count: 10_000), title: "t\(index)").id)
        }
        let filter = TaskFilter(limit: 500, byteBudget: 50_000)
        let pages = try await Self.pages(test, person, filter)
        // 10,400 bytes a task: four fit in 50,000, the fifth would pass it.
        #expect(pages.dropLast().allSatisfy { $0.count == 4 })
        #expect(pages.allSatisfy { $0.reduce(0) { $0 + $1.pageBytes } <= filter.byteBudget })
        let listed = pages.flatMap { $0.map(\.id) }
        #expect(listed == ids.reversed())
    }

    @Test func aTaskLargerThanTheBudgetMakesAPageOfItsOwnAndTheNextOneFollows() async throws {
        let (test, person, keyID) = try await Self.store()
        let older = try await Self.make(test, person, keyID, description: "small", title: "older")
        let huge = try await Self.make(test, person, keyID, description: String(repeating: "h", count: 20_000), title: "huge")
        let filter = TaskFilter(limit: 500, byteBudget: 5_000)
        let (first, next) = try await test.tasks.list(person, filter, after: nil)
        #expect(first.map(\.id) == [huge.id])
        let cursor = try #require(next, "the task after the large one was not known")
        let (second, last) = try await test.tasks.list(person, filter, after: cursor)
        #expect(second.map(\.id) == [older.id])
        #expect(last == nil)
    }

    @Test func theLimitStillEndsAPageThatIsUnderItsBudget() async throws {
        let (test, person, keyID) = try await Self.store()
        for index in 0..<5 { try await Self.make(test, person, keyID, description: "", title: "t\(index)") }
        let (page, next) = try await test.tasks.list(person, TaskFilter(limit: 3), after: nil)
        #expect(page.count == 3)
        #expect(next != nil)
    }

    /// Tasks moved since the first page come from the other query of the list; the budget
    /// holds across both.
    @Test func theBudgetHoldsWhenTasksMovedWhilePaging() async throws {
        let (test, person, keyID) = try await Self.store()
        var ids: [String] = []
        for index in 0..<12 {
            ids.append(try await Self.make(test, person, keyID, description: String(repeating: "m", count: 3_000), title: "t\(index)").id)
        }
        let filter = TaskFilter(limit: 500, byteBudget: 10_000)
        var (page, cursor) = try await test.tasks.list(person, filter, after: nil)
        var seen = page.map(\.id)
        // Every task not listed yet changes: each moves to the top, and the cursor keeps it
        // where it stood.
        for id in ids where !seen.contains(id) {
            _ = try await test.tasks.update(person, taskID: id, TaskPatch(priority: .high))
        }
        while let next = cursor {
            (page, cursor) = try await test.tasks.list(person, filter, after: next)
            #expect(page.reduce(0) { $0 + $1.pageBytes } <= filter.byteBudget)
            seen += page.map(\.id)
        }
        #expect(seen.count == ids.count)
        #expect(Set(seen) == Set(ids))
    }
}
