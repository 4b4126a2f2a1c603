// `import StrataTesting` brings the temporary databases too.
@_exported import StrataTestFixtures
