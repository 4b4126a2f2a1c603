import Foundation
import Hummingbird
import StrataRecords

/// A todo: one row of table `todo`, read and written by the code `@Record` generates.
@Record(table: "todo")
public struct Todo: Codable, Sendable, Equatable, ResponseEncodable {
    @PrimaryKey public var id: Int64?
    public var title: String
    public var completed: Bool

    public init(id: Int64? = nil, title: String, completed: Bool = false) {
        self.id = id
        self.title = title
        self.completed = completed
    }
}

/// The full-text index over titles: an FTS5 table whose content is `todo`, kept in sync by the
/// triggers `createFTS5Table` makes.
@Record(table: "todo_search")
public struct TodoTitle: Sendable {
    @PrimaryKey @Column("rowid") public var id: Int64?
    public var title: String
}

/// `POST /todos`: `title` is required.
public struct NewTodo: Decodable, Sendable {
    public var title: String
    public var completed: Bool?
}

/// `PATCH /todos/:id`: what is present changes.
public struct TodoChanges: Decodable, Sendable {
    public var title: String?
    public var completed: Bool?
}

/// One page of `GET /todos`.
public struct TodoPage: Codable, Sendable, ResponseEncodable {
    public var items: [Todo]
    public var total: Int
    public var limit: Int
    public var offset: Int
}

/// What `GET /todos/search` returns, best match first.
public struct SearchResults: Codable, Sendable, ResponseEncodable {
    public var query: String
    public var items: [Todo]
}

/// Titles are text a person types: not empty, not a book.
public enum TodoValidation {
    public static let maxTitleLength = 500

    /// The title trimmed, or a 422 that says what is wrong with it.
    public static func title(_ raw: String) throws -> String {
        let title = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else {
            throw HTTPError(.unprocessableContent, message: "title must not be empty")
        }
        guard title.count <= maxTitleLength else {
            throw HTTPError(.unprocessableContent, message: "title is longer than \(maxTitleLength) characters")
        }
        return title
    }
}
