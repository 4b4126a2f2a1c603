// The @Record macro: reads a struct's stored properties and writes, in an extension, the row
// mapping, the column list, typed columns and the bind calls that StrataRecords' persistence and
// query builder run on. Everything it generates calls public, generic, inlinable API, so the
// compiler specializes it for the record's concrete property types.
import SwiftCompilerPlugin
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

@main
struct StrataRecordsPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [RecordMacro.self, RecordPropertyMarkerMacro.self]
}

/// `@PrimaryKey`, `@Column("name")`, `@Default(value)`, `@JSON` and the constraints
/// (`@References`, `@Indexed`, `@Unique`, `@Check`): markers that `@Record` reads; they generate nothing.
public struct RecordPropertyMarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        if !declaration.is(VariableDeclSyntax.self) {
            context.diagnose(Diagnostic(node: Syntax(node), message: RecordDiagnostic.markerOnNonProperty(node.attributeName.trimmedDescription)))
        }
        return []
    }
}

/// One stored property as `@Record` maps it.
struct RecordProperty {
    let name: String
    let column: String
    let type: TypeSyntax
    let isPrimaryKey: Bool
    /// `@JSON`: any Codable value, stored as JSON text.
    var isJSON = false
    /// The constraint attributes, in source order.
    var constraints: [ConstraintAttribute] = []
    /// `@Default(literal)`: the literal as written, passed on to `RecordColumn.defaulting(to:as:)`.
    var defaultLiteral: String?
    /// Where the property is declared, for a diagnostic about it.
    var node: Syntax?
}

/// How a property's name becomes its column's when it has no `@Column` (`ColumnNaming` in
/// StrataRecords, read from `@Record(columnNaming:)`).
enum ColumnNamingRule: String {
    case propertyName, snakeCase

    func columnName(for property: String) -> String {
        switch self {
        case .propertyName: return property
        case .snakeCase: return Self.snakeCase(property)
        }
    }

    /// `property` in snake_case, on Unicode scalars, where only ASCII letters have a case: an
    /// underscore before an uppercase letter that follows a lowercase letter or an ASCII digit,
    /// and before the last uppercase letter of a run that a lowercase letter follows; then every
    /// letter lowercased. Other scalars are kept and start no word. `authorId` → `author_id`,
    /// `URLString` → `url_string`.
    static func snakeCase(_ property: String) -> String {
        let scalars = Array(property.unicodeScalars)
        func isUpper(_ index: Int) -> Bool { index >= 0 && index < scalars.count && ("A"..."Z").contains(scalars[index]) }
        func isLower(_ index: Int) -> Bool { index >= 0 && index < scalars.count && ("a"..."z").contains(scalars[index]) }
        func isDigit(_ index: Int) -> Bool { index >= 0 && index < scalars.count && ("0"..."9").contains(scalars[index]) }
        var result = String.UnicodeScalarView()
        for index in scalars.indices {
            if isUpper(index), (isLower(index - 1) || isDigit(index - 1)) || (isUpper(index - 1) && isLower(index + 1)) {
                result.append("_")
            }
            let scalar = scalars[index]
            result.append(("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32) ?? scalar : scalar)
        }
        return String(result)
    }
}

/// A `@Default` literal's kind, checked against the property's type where the macro knows it.
enum DefaultLiteralKind: String {
    case integer = "an integer", float = "a floating-point number", string = "a string", boolean = "a Boolean", `nil` = "nil"
}

/// A constraint attribute on a property, kept as the arguments written, which the generated code
/// passes on (so the compiler checks them there too).
struct ConstraintAttribute {
    enum Kind: String { case references, indexed, unique, check }
    let kind: Kind
    /// The attribute's arguments as written (`Author.self, onDelete: .cascade`), or empty.
    let arguments: String

    /// The attribute names `@Record` reads as constraints.
    static let names: [String: Kind] = ["References": .references, "Indexed": .indexed, "Unique": .unique, "Check": .check]

    /// The generated `RecordConstraint` for `column`.
    func expression(column: String) -> String {
        "StrataRecords.RecordConstraint.\(kind.rawValue)(\(RecordMacro.literal(column))\(arguments.isEmpty ? "" : ", " + arguments))"
    }
}

public struct RecordMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let structDecl = declaration.as(StructDeclSyntax.self) else {
            let kind: String
            if declaration.is(ClassDeclSyntax.self) {
                kind = "a class"
            } else if declaration.is(EnumDeclSyntax.self) {
                kind = "an enum"
            } else if declaration.is(ActorDeclSyntax.self) {
                kind = "an actor"
            } else {
                kind = "not a struct"
            }
            context.diagnose(Diagnostic(node: Syntax(node), message: RecordDiagnostic.notAStruct(kind)))
            return []
        }
        let typeName = structDecl.name.text
        if let generics = structDecl.genericParameterClause {
            context.diagnose(Diagnostic(node: Syntax(generics), message: RecordDiagnostic.genericStruct(typeName)))
            return []
        }
        // Both the table name and the properties are read before giving up, so every mistake in
        // the declaration is reported at once.
        let tableArgument = Result { try tableNameArgument(of: node, in: context) }
        let namingArgument = Result { try columnNamingArgument(of: node, in: context) }
        guard case .success(let naming) = namingArgument,
            let properties = storedProperties(of: structDecl, naming: naming, in: context),
            case .success(let tableArgumentValue) = tableArgument
        else { return [] }
        guard !properties.isEmpty else {
            context.diagnose(Diagnostic(node: Syntax(structDecl.name), message: RecordDiagnostic.noStoredProperties(typeName)))
            return []
        }
        let keys = properties.filter(\.isPrimaryKey)
        if keys.count > 1 {
            context.diagnose(Diagnostic(node: Syntax(node), message: RecordDiagnostic.severalPrimaryKeys(typeName)))
            return []
        }
        let tableName = tableArgumentValue ?? defaultTableName(for: typeName)
        let access = accessModifier(of: structDecl)
        // Both protocols are named: the compiler looks a conformance up through the macro only
        // for a protocol the macro lists, so typed queries (on `QueryableRecord`) must find it too.
        let isView = node.arguments?.as(LabeledExprListSyntax.self)?.contains { $0.label?.text == "view" } ?? false
        return [
            try makeExtension(
                type: type, access: access, tableName: tableName, properties: properties, key: keys.first,
                memberwise: hasUsableMemberwiseInit(structDecl, properties: properties), isView: isView)
        ]
    }

    // MARK: - Reading the declaration

    /// The stored properties in declaration order, each column named by `@Column` or else by
    /// `naming`; nil after a diagnostic.
    static func storedProperties(
        of decl: StructDeclSyntax, naming: ColumnNamingRule = .propertyName,
        in context: some MacroExpansionContext
    ) -> [RecordProperty]? {
        var result: [RecordProperty] = []
        var failed = false
        for member in decl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) }) { continue }
            let isLazy = variable.modifiers.contains { $0.name.text == "lazy" }
            let isPrimaryKey = hasAttribute("PrimaryKey", on: variable)
            let isJSON = hasAttribute("JSON", on: variable)
            let columnName: String?
            let constraints: [ConstraintAttribute]
            let defaultValue: (expression: ExprSyntax, kind: DefaultLiteralKind)?
            do {
                columnName = try columnArgument(of: variable, in: context)
                constraints = try constraintAttributes(of: variable, in: context)
                defaultValue = try defaultArgument(of: variable, isPrimaryKey: isPrimaryKey, isJSON: isJSON, in: context)
            } catch {
                failed = true
                continue
            }
            let isLetWithValue = variable.bindingSpecifier.text == "let"
            for binding in variable.bindings {
                guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
                if let accessors = binding.accessorBlock, isComputed(accessors) { continue }
                // A `let` with a value is fixed by the declaration: nothing to read from a row.
                if isLetWithValue, binding.initializer != nil { continue }
                let name = identifier.identifier.text.filter { $0 != "`" }
                if isLazy {
                    context.diagnose(Diagnostic(node: Syntax(binding), message: RecordDiagnostic.lazyProperty(name)))
                    failed = true
                    continue
                }
                guard let annotated = binding.typeAnnotation?.type else {
                    context.diagnose(Diagnostic(node: Syntax(binding), message: RecordDiagnostic.missingType(name)))
                    failed = true
                    continue
                }
                let type = annotated.trimmed
                if let reason = unmappableReason(type), !(isJSON && isStructural(type)) {
                    context.diagnose(Diagnostic(node: Syntax(annotated), message: RecordDiagnostic.notABinding(name, type.description, reason)))
                    failed = true
                    continue
                }
                if let defaultValue, let expected = mismatch(of: defaultValue.kind, with: type) {
                    context.diagnose(
                        Diagnostic(
                            node: Syntax(defaultValue.expression),
                            message: RecordDiagnostic.defaultWrongKind(name, type.description, defaultValue.kind.rawValue, expected)))
                    failed = true
                    continue
                }
                result.append(
                    RecordProperty(
                        name: name, column: columnName ?? naming.columnName(for: name), type: type, isPrimaryKey: isPrimaryKey,
                        isJSON: isJSON, constraints: constraints, defaultLiteral: defaultValue?.expression.trimmedDescription,
                        node: Syntax(binding)))
            }
        }
        // SQLite compares column names with ASCII case folded: two properties on one column
        // would fail `CREATE TABLE` and read each other's values.
        var seen: [String: String] = [:]
        for property in result {
            let key = asciiLowercased(property.column)
            if let first = seen[key] {
                context.diagnose(
                    Diagnostic(
                        node: property.node ?? Syntax(decl.name),
                        message: RecordDiagnostic.duplicateColumn(property.name, property.column, first)))
                failed = true
            } else {
                seen[key] = property.name
            }
        }
        return failed ? nil : result
    }

    /// `text` with its ASCII letters lowercased, as SQLite compares identifiers.
    static func asciiLowercased(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            result.append(("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32) ?? scalar : scalar)
        }
        return String(result)
    }

    /// The `@Default` literal and its kind, nil without the attribute; a diagnostic (and a thrown
    /// stop) for anything but one literal, a second `@Default`, or one on a key or a `@JSON` property.
    static func defaultArgument(
        of variable: VariableDeclSyntax, isPrimaryKey: Bool, isJSON: Bool,
        in context: some MacroExpansionContext
    ) throws -> (expression: ExprSyntax, kind: DefaultLiteralKind)? {
        let attributes = variable.attributes.compactMap { $0.as(AttributeSyntax.self) }.filter { $0.attributeName.trimmedDescription == "Default" }
        guard let attribute = attributes.first else { return nil }
        if attributes.count > 1 {
            context.diagnose(Diagnostic(node: Syntax(attributes[1]), message: RecordDiagnostic.severalDefaults()))
            throw AlreadyDiagnosed()
        }
        if isPrimaryKey || isJSON {
            context.diagnose(Diagnostic(node: Syntax(attribute), message: RecordDiagnostic.defaultNotApplicable(isPrimaryKey ? "@PrimaryKey" : "@JSON")))
            throw AlreadyDiagnosed()
        }
        let arguments = attribute.arguments?.as(LabeledExprListSyntax.self)
        guard let arguments, arguments.count == 1, let argument = arguments.first, argument.label == nil,
            let kind = literalKind(of: argument.expression)
        else {
            let node = arguments?.first.map { Syntax($0.expression) } ?? Syntax(attribute)
            context.diagnose(Diagnostic(node: node, message: RecordDiagnostic.defaultNotALiteral()))
            throw AlreadyDiagnosed()
        }
        // Not trimmed: a diagnostic about the literal points at it in the source.
        return (argument.expression, kind)
    }

    /// What kind of literal `expression` is (a minus sign before a number included), or nil.
    static func literalKind(of expression: ExprSyntax) -> DefaultLiteralKind? {
        if expression.is(IntegerLiteralExprSyntax.self) { return .integer }
        if expression.is(FloatLiteralExprSyntax.self) { return .float }
        if expression.is(BooleanLiteralExprSyntax.self) { return .boolean }
        if expression.is(NilLiteralExprSyntax.self) { return .nil }
        if let string = expression.as(StringLiteralExprSyntax.self) {
            return string.representedLiteralValue == nil ? nil : .string
        }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            if prefix.expression.is(IntegerLiteralExprSyntax.self) { return .integer }
            if prefix.expression.is(FloatLiteralExprSyntax.self) { return .float }
        }
        return nil
    }

    /// What a property of `type` needs instead of a `kind` literal, when the macro can tell it
    /// does not fit: the standard numeric, text and Boolean types, and `nil` for a non-optional.
    /// Other types are left to the compiler, which checks the literal in the generated code.
    static func mismatch(of kind: DefaultLiteralKind, with type: TypeSyntax) -> String? {
        var inner = type
        var isOptional = false
        while true {
            if let optional = inner.as(OptionalTypeSyntax.self) {
                inner = optional.wrappedType; isOptional = true
            } else if let implicitly = inner.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
                inner = implicitly.wrappedType; isOptional = true
            } else if let identifier = inner.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional",
                let wrapped = identifier.genericArgumentClause?.arguments.first
            {
                guard let wrappedType = Syntax(wrapped.argument).as(TypeSyntax.self) else { return nil }
                inner = wrappedType; isOptional = true
            } else {
                break
            }
        }
        if kind == .nil { return isOptional ? nil : "a value (only an optional property takes nil)" }
        let name: String
        if let identifier = inner.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil {
            name = identifier.name.text
        } else if let member = inner.as(MemberTypeSyntax.self), member.genericArgumentClause == nil,
            ["Swift", "Foundation", "CoreGraphics"].contains(member.baseType.trimmedDescription)
        {
            name = member.name.text
        } else {
            return nil
        }
        let integers: Set<String> = ["Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64"]
        let floats: Set<String> = ["Double", "Float", "Float32", "Float64", "CGFloat"]
        if integers.contains(name) { return kind == .integer ? nil : DefaultLiteralKind.integer.rawValue }
        if floats.contains(name) { return kind == .integer || kind == .float ? nil : DefaultLiteralKind.float.rawValue }
        if name == "String" { return kind == .string ? nil : DefaultLiteralKind.string.rawValue }
        if name == "Bool" { return kind == .boolean ? nil : "true or false" }
        return nil
    }

    /// Whether the compiler gives the struct a memberwise init that takes exactly `properties`
    /// by their names and is visible to the extension: no init of its own in the body, and
    /// nothing (a private property, a property wrapper, a conditional member, a keyword name)
    /// that changes that init's access or parameters. Other records assign property by property.
    static func hasUsableMemberwiseInit(_ decl: StructDeclSyntax, properties: [RecordProperty]) -> Bool {
        var stored: [String] = []
        for member in decl.memberBlock.members {
            if member.decl.is(InitializerDeclSyntax.self) || member.decl.is(IfConfigDeclSyntax.self) || member.decl.is(MacroExpansionDeclSyntax.self) {
                return false
            }
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) }) { continue }
            if variable.modifiers.contains(where: { ["private", "fileprivate"].contains($0.name.text) }) { return false }
            let markers = ["PrimaryKey", "Column", "Default", "JSON"] + ConstraintAttribute.names.keys
            if variable.attributes.contains(where: { !markers.contains($0.as(AttributeSyntax.self)?.attributeName.trimmedDescription ?? "") }) { return false }
            let isLetWithValue = variable.bindingSpecifier.text == "let"
            for binding in variable.bindings {
                guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else { return false }
                if let accessors = binding.accessorBlock, isComputed(accessors) { continue }
                if isLetWithValue, binding.initializer != nil { continue }
                stored.append(identifier.identifier.text.filter { $0 != "`" })
            }
        }
        let keywords: Set<String> = ["inout", "var", "let", "self", "Self", "_"]
        return stored == properties.map(\.name) && !stored.contains(where: keywords.contains)
    }

    /// Why a property's declared type cannot be a column, when its shape alone tells.
    static func unmappableReason(_ type: TypeSyntax) -> String? {
        var inner = type
        while let optional = inner.as(OptionalTypeSyntax.self) { inner = optional.wrappedType }
        if let implicitly = inner.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { inner = implicitly.wrappedType }
        if inner.is(FunctionTypeSyntax.self) { return "a function is not stored in a column" }
        if inner.is(TupleTypeSyntax.self) { return "a tuple has no single column value" }
        if inner.is(ArrayTypeSyntax.self) { return "an array is not a Binding; mark it @JSON to store it as JSON text, or wrap it in ArrayBinding" }
        if inner.is(DictionaryTypeSyntax.self) {
            return "a dictionary is not a Binding; mark it @JSON to store it as JSON text, or wrap it in DictionaryBinding"
        }
        if inner.is(MetatypeTypeSyntax.self) { return "a metatype is not a Binding" }
        if inner.is(SomeOrAnyTypeSyntax.self) { return "an existential or opaque type has no fixed column type" }
        return nil
    }

    /// Whether the refusal is of an array or dictionary, which `@JSON` stores as JSON text.
    static func isStructural(_ type: TypeSyntax) -> Bool {
        var inner = type
        while let optional = inner.as(OptionalTypeSyntax.self) { inner = optional.wrappedType }
        return inner.is(ArrayTypeSyntax.self) || inner.is(DictionaryTypeSyntax.self)
    }

    static func isComputed(_ accessors: AccessorBlockSyntax) -> Bool {
        switch accessors.accessors {
        case .getter: return true
        case .accessors(let list):
            // willSet/didSet observe a stored property; get/set/_read/_modify compute one.
            return list.contains { !["willSet", "didSet"].contains($0.accessorSpecifier.text) }
        }
    }

    static func hasAttribute(_ name: String, on variable: VariableDeclSyntax) -> Bool {
        variable.attributes.contains { element in
            element.as(AttributeSyntax.self)?.attributeName.trimmedDescription == name
        }
    }

    /// The name `@Column("name")` gives, nil without the attribute; a diagnostic (and a thrown
    /// stop) when its argument is not a plain string literal.
    static func columnArgument(of variable: VariableDeclSyntax, in context: some MacroExpansionContext) throws -> String? {
        for element in variable.attributes {
            guard let attribute = element.as(AttributeSyntax.self), attribute.attributeName.trimmedDescription == "Column" else { continue }
            let first = attribute.arguments?.as(LabeledExprListSyntax.self)?.first?.expression
            return try stringLiteral(first, of: attribute, in: context)
        }
        return nil
    }

    /// The constraint attributes on a property, in source order; a diagnostic (and a thrown
    /// stop) for a `@Check` whose SQL is an empty literal.
    static func constraintAttributes(of variable: VariableDeclSyntax, in context: some MacroExpansionContext) throws -> [ConstraintAttribute] {
        var result: [ConstraintAttribute] = []
        for element in variable.attributes {
            guard let attribute = element.as(AttributeSyntax.self),
                let kind = ConstraintAttribute.names[attribute.attributeName.trimmedDescription]
            else { continue }
            let arguments = attribute.arguments?.as(LabeledExprListSyntax.self)
            if kind == .check, let literal = arguments?.first?.expression.as(StringLiteralExprSyntax.self),
                literal.representedLiteralValue?.allSatisfy(\.isWhitespace) ?? false
            {
                context.diagnose(Diagnostic(node: Syntax(literal), message: RecordDiagnostic.emptyCheck()))
                throw AlreadyDiagnosed()
            }
            result.append(ConstraintAttribute(kind: kind, arguments: arguments?.trimmedDescription ?? ""))
        }
        return result
    }

    /// `columnNaming:` as written (`.snakeCase`, `ColumnNaming.snakeCase`), `.propertyName`
    /// without it; a diagnostic (and a thrown stop) for anything computed.
    static func columnNamingArgument(of node: AttributeSyntax, in context: some MacroExpansionContext) throws -> ColumnNamingRule {
        guard let arguments = node.arguments?.as(LabeledExprListSyntax.self) else { return .propertyName }
        for argument in arguments where argument.label?.text == "columnNaming" {
            if let member = argument.expression.as(MemberAccessExprSyntax.self),
                member.base.map({ ["ColumnNaming", "StrataRecords.ColumnNaming"].contains($0.trimmedDescription) }) ?? true,
                let rule = ColumnNamingRule(rawValue: member.declName.baseName.text)
            {
                return rule
            }
            context.diagnose(Diagnostic(node: Syntax(argument.expression), message: RecordDiagnostic.namingNotALiteral()))
            throw AlreadyDiagnosed()
        }
        return .propertyName
    }

    static func tableNameArgument(of node: AttributeSyntax, in context: some MacroExpansionContext) throws -> String? {
        guard let arguments = node.arguments?.as(LabeledExprListSyntax.self) else { return nil }
        // `view:` names a view the way `table:` names a table.
        for argument in arguments where argument.label?.text == "table" || argument.label?.text == "view" {
            if argument.expression.is(NilLiteralExprSyntax.self) { return nil }
            return try stringLiteral(argument.expression, of: node, in: context)
        }
        return nil
    }

    /// The value of a string literal without interpolations (its escapes resolved), or a
    /// diagnostic: a name computed at run time cannot go into SQL built at compile time.
    static func stringLiteral(_ expression: ExprSyntax?, of attribute: AttributeSyntax, in context: some MacroExpansionContext) throws -> String {
        if let literal = expression?.as(StringLiteralExprSyntax.self), let value = literal.representedLiteralValue, !value.isEmpty {
            return value
        }
        let name = attribute.attributeName.trimmedDescription
        context.diagnose(Diagnostic(node: expression.map { Syntax($0) } ?? Syntax(attribute), message: RecordDiagnostic.nameNotALiteral(name)))
        throw AlreadyDiagnosed()
    }

    /// GRDB's default: the type name with its leading capital (or capitals, for an acronym)
    /// lowercased: `Player` → `player`, `HTTPRequest` → `httpRequest`.
    static func defaultTableName(for typeName: String) -> String {
        let capitals = typeName.prefix { $0.isUppercase }
        if capitals.count == typeName.count { return typeName.lowercased() }
        guard capitals.count > 1, capitals.count < typeName.count else { return typeName.prefix(1).lowercased() + typeName.dropFirst() }
        let lowered = capitals.dropLast().lowercased()
        return lowered + typeName.dropFirst(capitals.count - 1)
    }

    static func accessModifier(of decl: StructDeclSyntax) -> String {
        for modifier in decl.modifiers {
            switch modifier.name.text {
            case "public", "open": return "public "
            case "package": return "package "
            default: continue
            }
        }
        return ""
    }

    // MARK: - Writing the extension

    /// `text` as a Swift string literal. Escapes Unicode scalars, not `Character`s: on Linux a
    /// `"` followed by a combining mark is one `Character`, which a per-character switch would
    /// copy unescaped and so end the literal early (and `\r\n` is one `Character` too).
    static func literal(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                escaped += "\\u{\(String(scalar.value, radix: 16))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "\"\(escaped)\""
    }

    static func makeExtension(
        type: some TypeSyntaxProtocol, access: String, tableName: String, properties: [RecordProperty], key: RecordProperty?, memberwise: Bool = false,
        isView: Bool = false
    ) throws -> ExtensionDeclSyntax {
        let columnsList = properties.map { property in
            "StrataRecords.RecordColumn.\(property.isJSON ? "describingJSON" : "describing")(\(literal(property.column)), as: (\(property.type)).self, isPrimaryKey: \(property.isPrimaryKey))"
                + (property.defaultLiteral.map { ".defaulting(to: \($0), as: (\(property.type)).self)" } ?? "")
        }.joined(separator: ",\n    ")
        let typedColumns = properties.map { property in
            // `var`, so a trigger's UPDATE can write `$0.count += 1` on an `inout` copy.
            "    \(access)var \(property.name): StrataRecords.TypedColumn<\(property.type)>"
        }.joined(separator: "\n")
        let recordName = literal(type.trimmedDescription)
        let typedColumnInits = properties.map { property in
            "        self.\(property.name) = StrataRecords.TypedColumn(\(property.isJSON ? "json: " : "")\(literal(property.column)), qualifier: qualifier, record: \(recordName))"
        }.joined(separator: "\n")
        func reads(index: (Int) -> String) -> String {
            guard memberwise else {
                return properties.enumerated().map { offset, property in
                    "    self.\(property.name) = try reader.\(property.isJSON ? "readJSON" : "read")(\(index(offset)), \(literal(property.column)))"
                }.joined(separator: "\n")
            }
            // Values read into locals, in the same order (so the same error is thrown first), then
            // one memberwise init: assigning property by property builds `self` in memory and
            // copies it out (a retain and a release of every string), which the init avoids.
            let locals = properties.enumerated().map { offset, property in
                "    let value\(offset): \(property.type) = try reader.\(property.isJSON ? "readJSON" : "read")(\(index(offset)), \(literal(property.column)))"
            }
            let arguments = properties.enumerated().map { offset, property in "\(property.name): value\(offset)" }
            return (locals + ["    self = Self(\(arguments.joined(separator: ", ")))"]).joined(separator: "\n")
        }
        let readsByIndex = reads { "indexes[\($0)]" }
        let readsInOrder = reads { "\($0)" }
        let readsFromOffset = reads { $0 == 0 ? "offset" : "offset &+ \($0)" }
        func binds(_ list: [RecordProperty]) -> String {
            list.enumerated().map { offset, property in
                "try binder.bind(StrataRecords.RecordValue.\(property.isJSON ? "json" : "bindable")(self.\(property.name)), at: \(offset + 1))"
            }.joined(separator: "\n        ")
        }
        let noKey = "throw StrataRecords.RecordError.noPrimaryKey(record: \"\\(Self.self)\")"
        let all = binds(properties)
        let keyLast = key.map { binds(properties.filter { !$0.isPrimaryKey } + [$0]) } ?? noKey
        let keyOnly = key.map { binds([$0]) } ?? noKey
        let primaryKeyIndex = properties.firstIndex { $0.isPrimaryKey }.map(String.init) ?? "nil"
        let didInsert = key.map { "StrataRecords.RecordValue.assignRowID(rowID, to: &self.\($0.name))" } ?? ""
        let keyIsNil = key.map { "StrataRecords.RecordValue.isNil(self.\($0.name))" } ?? "false"

        let source: DeclSyntax = """
            extension \(type.trimmed): \(raw: isView ? "StrataRecords.ViewRecord" : "StrataRecords.Record"), StrataRecords.QueryableRecord {
            \(raw: access)static let tableName: String = \(raw: literal(tableName))
            \(raw: access)static let recordColumns: [StrataRecords.RecordColumn] = [
                \(raw: columnsList)
            ]
            \(raw: access)static let primaryKeyIndex: Int? = \(raw: primaryKeyIndex)
            \(raw: access)static let recordStatements = StrataRecords.RecordStatements(table: tableName, columns: recordColumns, primaryKeyIndex: primaryKeyIndex)
            \(raw: access)struct Columns: StrataRecords.RecordColumnSet {
            \(raw: typedColumns)
                \(raw: access)init(qualifier: String?) {
            \(raw: typedColumnInits)
                }
            }
            \(raw: access)static let columns = Columns(qualifier: tableName)
            \(raw: access)init(row: Strata.Row) throws {
                try self.init(row: row, columnIndexes: row.recordColumnIndexes(for: Self.self))
            }
            \(raw: access)init(row: Strata.Row, columnIndexes indexes: [Int32]) throws {
                let reader = StrataRecords.RecordRowReader(row, for: Self.self)
            \(raw: readsByIndex)
            }
            \(raw: access)init(columnOrderedRow row: borrowing Strata.Row) throws {
                let reader = StrataRecords.RecordRowReader(row, for: Self.self)
            \(raw: readsInOrder)
            }
            \(raw: access)init(columnOrderedRow row: borrowing Strata.Row, startingAt offset: Int32) throws {
                let reader = StrataRecords.RecordRowReader(row, for: Self.self)
            \(raw: readsFromOffset)
            }
            \(raw: access)func bindRecordColumns(to binder: inout StrataRecords.RecordBinder, order: StrataRecords.RecordBindOrder) throws {
                switch order {
                case .all:
                    \(raw: all)
                case .keyLast:
                    \(raw: keyLast)
                case .keyOnly:
                    \(raw: keyOnly)
                }
            }
            \(raw: access)var hasNilPrimaryKey: Bool { \(raw: keyIsNil) }
            \(raw: access)mutating func recordDidInsert(rowID: Int64) {
                \(raw: didInsert)
            }
            }
            """
        guard let decl = source.as(ExtensionDeclSyntax.self) else {
            throw RecordExpansionError.malformed
        }
        return decl
    }
}

// The constraints are a member of the struct itself, not of the extension: the extension sits at
// file scope, where `@References(Author.self)` in a nested record would find another `Author`
// (or none) instead of its sibling.
extension RecordMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        // The extension role reports what is wrong with the declaration; this one stays silent.
        let silent = SilentContext(context)
        guard let structDecl = declaration.as(StructDeclSyntax.self), structDecl.genericParameterClause == nil,
            let naming = try? columnNamingArgument(of: node, in: silent),
            let properties = storedProperties(of: structDecl, naming: naming, in: silent)
        else { return [] }
        let constraints = properties.flatMap { property in property.constraints.map { $0.expression(column: property.column) } }
        guard !constraints.isEmpty else { return [] }
        // Computed, not stored: a reference reads the other record's key, and a stored static
        // reading its own type's (a self-reference) would deadlock in its lazy initialization.
        let member: DeclSyntax = """
            \(raw: accessModifier(of: structDecl))static var recordConstraints: [StrataRecords.RecordConstraint] {
                [
                    \(raw: constraints.joined(separator: ",\n        "))
                ]
            }
            """
        return [member]
    }
}

/// A context that drops diagnostics: for a second reading of a declaration already diagnosed.
final class SilentContext<Base: MacroExpansionContext>: MacroExpansionContext {
    let base: Base
    init(_ base: Base) { self.base = base }
    func makeUniqueName(_ name: String) -> TokenSyntax { base.makeUniqueName(name) }
    func diagnose(_ diagnostic: Diagnostic) {}
    func location(of node: some SyntaxProtocol, at position: PositionInSyntaxNode, filePathMode: SourceLocationFilePathMode) -> AbstractSourceLocation? {
        base.location(of: node, at: position, filePathMode: filePathMode)
    }
    var lexicalContext: [Syntax] { base.lexicalContext }
}

/// Stops reading a declaration after a diagnostic said what is wrong with it.
struct AlreadyDiagnosed: Error {}

enum RecordExpansionError: Error, CustomStringConvertible {
    case malformed
    var description: String { "@Record produced an extension that does not parse (a bug in StrataRecordsMacros)" }
}

/// What `@Record` refuses, said at the declaration: each refusal is a named constructor, so its
/// message and its stable id are written side by side.
struct RecordDiagnostic: DiagnosticMessage {
    let message: String
    let diagnosticID: MessageID
    var severity: DiagnosticSeverity { .error }

    private init(_ id: String, _ message: String) {
        self.message = message
        diagnosticID = MessageID(domain: "StrataRecords", id: id)
    }

    static func notAStruct(_ kind: String) -> Self {
        Self("notAStruct", "@Record applies to structs, and this is \(kind): records are values, read from rows and written back")
    }
    static func noStoredProperties(_ type: String) -> Self {
        Self("noStoredProperties", "@Record type '\(type)' has no stored properties to map to columns (computed properties are not stored)")
    }
    static func missingType(_ property: String) -> Self {
        Self("missingType", "property '\(property)' needs an explicit type annotation for @Record to map it to a column")
    }
    static func notABinding(_ property: String, _ type: String, _ reason: String) -> Self {
        Self("notABinding", "property '\(property)' of type '\(type)' is not a Binding: \(reason)")
    }
    static func lazyProperty(_ property: String) -> Self {
        Self("lazyProperty", "lazy property '\(property)' cannot be a column; make it a stored or computed property")
    }
    static func severalPrimaryKeys(_ type: String) -> Self {
        Self("severalPrimaryKeys", "@Record type '\(type)' marks more than one @PrimaryKey; a record has one primary key column")
    }
    static func markerOnNonProperty(_ marker: String) -> Self {
        Self("markerOnNonProperty", "@\(marker) marks a stored property of a @Record struct")
    }
    static func genericStruct(_ type: String) -> Self {
        Self(
            "genericStruct",
            "@Record does not apply to generic struct '\(type)': a record's table, columns and statements are static stored properties, which generic types cannot have"
        )
    }
    static func emptyCheck() -> Self {
        Self("emptyCheck", "@Check takes an SQL expression that a row must satisfy, such as \"year > 0\"; this one is empty")
    }
    static func namingNotALiteral() -> Self {
        Self("namingNotALiteral", "columnNaming takes .propertyName or .snakeCase written out: the macro names the columns at compile time")
    }
    static func defaultNotALiteral() -> Self {
        Self(
            "defaultNotALiteral",
            "@Default takes one literal: an integer, a floating-point number, a string without interpolation, true, false, or nil; the default is part of the table's schema, fixed when the record is declared"
        )
    }
    static func defaultWrongKind(_ property: String, _ type: String, _ given: String, _ expected: String) -> Self {
        Self("defaultWrongKind", "@Default gives \(given) to property '\(property)' of type '\(type)', which needs \(expected)")
    }
    static func defaultNotApplicable(_ marker: String) -> Self {
        Self(
            "defaultNotApplicable",
            "@Default does not apply to a \(marker) property: "
                + (marker == "@JSON"
                    ? "its column holds JSON text; make the property optional to add it to a table with rows"
                    : "a key's value comes from the record or from SQLite's rowid"))
    }
    static func severalDefaults() -> Self {
        Self("severalDefaults", "a property takes one @Default")
    }
    static func duplicateColumn(_ property: String, _ column: String, _ first: String) -> Self {
        Self(
            "duplicateColumn",
            "property '\(property)' maps to column '\(column)', which property '\(first)' maps to already (SQLite ignores ASCII case in column names); name one of them with @Column"
        )
    }
    static func nameNotALiteral(_ marker: String) -> Self {
        Self("nameNotALiteral", "@\(marker) takes a non-empty string literal without interpolation: the macro writes the name into SQL at compile time")
    }
}
