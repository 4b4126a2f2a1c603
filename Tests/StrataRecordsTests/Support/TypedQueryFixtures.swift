import Foundation
import Testing
import StrataRecords

@Record struct Publisher: Equatable { @PrimaryKey var id: Int64?; var name: String }
@Record(table: "edition") struct Edition: Equatable {
    @PrimaryKey var id: Int64?; var bookId: Int64; var publisherId: Int64?; var pages: Int
}
@Record struct Employee: Equatable { @PrimaryKey var id: Int64?; var name: String; var managerId: Int64? }

extension Author { static let books = hasMany(Book.self, using: \.authorId) }
extension Book {
    static let author = belongsTo(Author.self, using: \.authorId)
    static let edition = hasOne(Edition.self, using: \.bookId)
}
extension Employee { static let manager = belongsTo(Employee.self, using: \.managerId) }

/// The library of `makeLibrary()`, plus an author without books, publishers and editions.
func makeBigLibrary() throws -> Connection {
    let db = try makeLibrary()
    try db.run(literal: "INSERT INTO author(name, country) VALUES (\("Perec"), \("FR"))") // id 3, no books
    try Publisher.createTable(db)
    try Edition.createTable(db)
    try Publisher.insertAll(db, [Publisher(id: nil, name: "Ace"), Publisher(id: nil, name: "Gallimard")])
    try Edition.insertAll(
        db,
        [
            Edition(id: nil, bookId: 1, publisherId: 1, pages: 387), Edition(id: nil, bookId: 2, publisherId: 2, pages: 250),
            Edition(id: nil, bookId: 3, publisherId: nil, pages: 279)
        ])
    return db
}
