// `@Record(columnNaming: .snakeCase)`: the table's columns are the snake_case names (read back
// through `PRAGMA table_info`), an explicit `@Column` wins, and typed queries, joins, ordering,
// associations, constraints, indexes, JSON and full-text search all use the mapped names.
import Foundation
import StrataSQift
import Testing
@testable import StrataRecords

enum SnakeShelf {
    struct Details: Codable, Equatable { var pageCount: Int }

    @Record(table: "writers", columnNaming: .snakeCase)
    struct Writer: Equatable {
        @PrimaryKey var writerId: Int64?
        @Unique var penName: String
    }

    @Record(table: "posts", columnNaming: .snakeCase)
    struct Post: Equatable {
        @PrimaryKey var id: Int64?
        @References(SnakeShelf.Writer.self, onDelete: .cascade) var authorId: Int64
        @Indexed var URLString: String
        @Column("body") var text: String
        var score2: Int
        var publishedAtUTC: Double?
        @JSON var tagList: [String]
        @JSON var bookDetails: SnakeShelf.Details?
        @Check("score2 >= 0") @Default(0) var viewCount: Int
    }

    /// Without a table name: the type's default table, columns still snake_case.
    @Record(columnNaming: .snakeCase)
    struct ReadingLog: Equatable {
        @PrimaryKey var id: Int64?
        var readerName: String
    }

    /// The default naming, spelled out.
    @Record(table: "plain", columnNaming: .propertyName)
    struct Plain: Equatable { @PrimaryKey var id: Int64?; var authorId: Int64 }

    /// A full-text table over mapped names.
    @Record(table: "post_text", columnNaming: .snakeCase)
    struct PostText: Equatable { @PrimaryKey @Column("rowid") var id: Int64?; var postTitle: String; var bodyText: String }
}

private func columnNames(_ table: String, _ db: Connection) throws -> [String] {
    try db.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
}

@Suite struct ColumnNamingTests {
    @Test func theCreatedTablesColumnsAreTheMappedNames() throws {
        let db = try connection(withTablesOf: SnakeShelf.Writer.self, SnakeShelf.Post.self, SnakeShelf.ReadingLog.self, SnakeShelf.Plain.self)
        #expect(try columnNames("writers", db) == ["writer_id", "pen_name"])
        #expect(
            try columnNames("posts", db) == ["id", "author_id", "url_string", "body", "score2", "published_at_utc", "tag_list", "book_details", "view_count"])
        #expect(try columnNames("readingLog", db) == ["id", "reader_name"])
        #expect(try columnNames("plain", db) == ["id", "authorId"])
        #expect(
            SnakeShelf.Post.recordColumns.map(\.name) == [
                "id", "author_id", "url_string", "body", "score2", "published_at_utc", "tag_list", "book_details", "view_count"
            ])
        #expect(SnakeShelf.Post.columns.authorId.name == "author_id")

        // Constraints and indexes are on the mapped names.
        let foreignKeys: [String] = try db.query(#"SELECT "from" || '>' || "table" || '.' || "to" FROM pragma_foreign_key_list('posts')"#)
        #expect(foreignKeys == ["author_id>writers.writer_id"])
        let indexes: [String] = try db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'posts' AND sql IS NOT NULL ORDER BY name")
        #expect(indexes == ["posts_author_id_idx", "posts_url_string_idx"])
        let unique: [String] = try db.query(
            "SELECT ii.name FROM pragma_index_list('writers') AS il, pragma_index_info(il.name) AS ii WHERE il.\"unique\" = 1 AND il.origin = 'u'")
        #expect(unique == ["pen_name"])
        let defaultValue: String? = try db.query("SELECT dflt_value FROM pragma_table_info('posts') WHERE name = 'view_count'")
        #expect(defaultValue == "0")

        try SnakeShelf.Writer.checkSchema(db)
        try SnakeShelf.Post.checkSchema(db)
        #expect(try RecordSchema(SnakeShelf.Writer.self, SnakeShelf.Post.self, SnakeShelf.ReadingLog.self).plan(for: db).isEmpty)
    }

    @Test func typedQueriesJoinsAndAssociationsUseTheMappedNames() throws {
        let db = try Connection()
        try db.execute("PRAGMA foreign_keys = ON")
        try RecordSchema(SnakeShelf.Writer.self, SnakeShelf.Post.self).migrate(db)
        let ann = try SnakeShelf.Writer(writerId: nil, penName: "Ann").inserted(db)
        let bob = try SnakeShelf.Writer(writerId: nil, penName: "Bob").inserted(db)
        var first = try SnakeShelf.Post(
            id: nil, authorId: ann.writerId ?? 0, URLString: "https://a.example", text: "one", score2: 3,
            publishedAtUTC: 1.5, tagList: ["swift", "sql"], bookDetails: .init(pageCount: 120), viewCount: 10
        ).inserted(db)
        let second = try SnakeShelf.Post(
            id: nil, authorId: bob.writerId ?? 0, URLString: "https://b.example", text: "two", score2: 8,
            publishedAtUTC: nil, tagList: [], bookDetails: nil, viewCount: 0
        ).inserted(db)

        #expect(try SnakeShelf.Post.where { $0.authorId == (ann.writerId ?? 0) }.fetchAll(db) == [first])
        #expect(try SnakeShelf.Post.where { $0.publishedAtUTC == nil }.fetchAll(db) == [second])
        #expect(try SnakeShelf.Post.order(by: \.score2, .descending).fetchAll(db) == [second, first])
        #expect(try SnakeShelf.Post.where { $0.URLString.like("%b.example") }.fetchOne(db) == second)
        #expect(try SnakeShelf.Post.where { $0.tagList.contains("swift") }.fetchAll(db) == [first])
        #expect(try SnakeShelf.Post.where { $0.bookDetails.json("$.pageCount", as: Int.self) > 100 }.fetchAll(db) == [first])

        let joined = try SnakeShelf.Post.join(SnakeShelf.Writer.self, on: { $0.authorId == $1.writerId })
            .order { post, _ in post.score2 }.fetchAll(db)
        #expect(joined.map { $0.1.penName } == ["Ann", "Bob"])
        let writer = SnakeShelf.Post.belongsTo(SnakeShelf.Writer.self, using: \.authorId)
        let withWriters = try SnakeShelf.Post.including(required: writer).order { post, _ in post.score2 }.fetchAll(db)
        #expect(withWriters.map { $0.1 } == [ann, bob])
        let posts = SnakeShelf.Writer.hasMany(SnakeShelf.Post.self, using: \.authorId)
        let shelves = try SnakeShelf.Writer.including(all: posts).order(by: \.penName).fetchAll(db)
        #expect(shelves.map { $0.1.count } == [1, 1])

        first.viewCount = 11
        try first.update(db)
        #expect(try SnakeShelf.Post.fetchOne(db, id: first.id ?? 0)?.viewCount == 11)
        let raw: [String] = try db.query("SELECT url_string FROM posts ORDER BY id")
        #expect(raw == ["https://a.example", "https://b.example"])
        // ON DELETE CASCADE through the mapped foreign key.
        #expect(try ann.delete(db))
        #expect(try SnakeShelf.Post.fetchAll(db) == [second])
    }

    @Test func fullTextSearchUsesTheMappedNames() throws {
        let db = try Connection()
        try SnakeShelf.PostText.createFTS5Table(db)
        #expect(try columnNames("post_text", db) == ["post_title", "body_text"])
        _ = try SnakeShelf.PostText(id: nil, postTitle: "Snakes", bodyText: "on a plane").inserted(db)
        _ = try SnakeShelf.PostText(id: nil, postTitle: "Camels", bodyText: "in the desert").inserted(db)
        let hits = try SnakeShelf.PostText.where { $0.bodyText.match(FTS5Pattern(matchingAllTokensIn: "plane")) }.fetchAll(db)
        #expect(hits.map(\.postTitle) == ["Snakes"])
        let marked = try SnakeShelf.PostText.matching(FTS5Pattern(matchingAllTokensIn: "desert"))
            .select { _ in SnakeShelf.PostText.highlight(\.bodyText, open: "[", close: "]") }.fetchAll(db)
        #expect(marked == ["in the [desert]"])
    }
}
