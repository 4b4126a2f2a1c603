/// A model type the ORM can create empty and then fill column by column.
///
/// ```swift
/// struct User: Initializable {
///     var id = 0
///     var name = ""
/// }
/// ```
/// The ORM calls `init()` for every row it reads, then assigns each mapped key path, so mapped
/// properties must be `var`s. `init()` also supplies the value a new `NOT NULL` column gets for
/// existing rows when ``Storage/syncSchema(preserve:)`` adds it with `preserve: true`.
public protocol Initializable {
    /// Creates an empty instance, with each mapped property at its default, for the ORM to fill in.
    init()
}
