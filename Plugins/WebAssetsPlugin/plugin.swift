import PackagePlugin

// The plugin runs at build time only (never in the server), so it may use what PackagePlugin
// brings with it (Foundation's FileManager and URL) to list the folder.
import Foundation

/// Turns every file under the package's `web/` folder into Swift source of the target it is
/// applied to (`WebAssets`): the console's page is part of the binary, with no file to install
/// beside it. Every file is an input of the command, so changing one rebuilds the table;
/// adding or removing one changes the list the plugin hands over, which does too.
@main
struct WebAssetsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let web = context.package.directoryURL.appending(path: "web")
        let files = Self.files(under: web).sorted { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "WebAssetTable.swift")
        let tool = try context.tool(named: "WebAssetsTool")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) files of web/",
                executable: tool.url,
                arguments: [output.path, web.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            ),
        ]
    }

    /// The regular files under `folder`, at any depth; names starting with a dot are skipped
    /// (editor and system litter such as `.DS_Store`).
    static func files(under folder: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey],
                                                          options: [.skipsHiddenFiles]) else { return [] }
        var found: [URL] = []
        for case let url as URL in walker {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                found.append(url.standardizedFileURL)
            }
        }
        return found
    }
}
