import PackagePlugin

/// Turns every file under the package's `web/` folder into Swift source of the target it is
/// applied to (`WebAssets`): the console's page is part of the binary, with no file to install
/// beside it.
///
/// `Sources/WebAssets/web` is a symbolic link to `web/`, so its files are files of the target:
/// SwiftPM then notices a file added or removed there and plans the build again (a folder
/// outside every target is not watched, and a plan naming a removed file stops the build), and
/// hands every file to this plugin as an input, so a changed file runs the tool again. The
/// tool walks the folder itself and rewrites the Swift file only when its text changes.
@main
struct WebAssetsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let web = context.package.directoryURL.appending(path: "web")
        let output = context.pluginWorkDirectoryURL.appending(path: "WebAssetTable.swift")
        let tool = try context.tool(named: "WebAssetsTool")
        return [
            .buildCommand(
                displayName: "Embedding the files of web/",
                executable: tool.url,
                arguments: [output.path, web.path],
                inputFiles: (target as? SourceModuleTarget)?.sourceFiles.map(\.url) ?? [],
                outputFiles: [output]
            ),
        ]
    }
}
