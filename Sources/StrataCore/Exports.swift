// `import StrataCore` brings the layers below it: the kernel and the schema are modules of their
// own so that the compiler keeps their dependencies one way, not so that users import three.
@_exported import StrataKernel
@_exported import StrataSchema
