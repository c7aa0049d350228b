// GitHub repository reads: a file's or folder's contents, and search over code and issues.
import { Type } from "@keel/extension-sdk";
import { truncate } from "../sdk/text.js";
import { action, type IssueLike, issueLine, Limit, Repo, repoParts, requestOptions } from "./shape.js";

export const FILE_LIMIT = 60_000;

interface ContentItem {
  type: string;
  name: string;
  path: string;
  size?: number;
  sha?: string;
  content?: string;
  encoding?: string;
}

export const getContents = action({
  name: "get_contents",
  description:
    "Read a file (decoded text) or list a folder of a GitHub repository, at a branch, tag or commit (`ref`, default the default branch).",
  effect: "read",
  parameters: Type.Object({
    repo: Repo,
    path: Type.String({ description: "Path from the repository root; empty for the root folder" }),
    ref: Type.Optional(Type.String()),
  }),
  run: (args, { client, attempt, signal }) =>
    attempt(() =>
      client.repos.getContent({
        ...repoParts(args.repo),
        path: args.path.replace(/^\/+/, ""),
        ...(args.ref ? { ref: args.ref } : {}),
        ...requestOptions(signal),
      }),
    ).map(({ data }) => {
      if (Array.isArray(data)) {
        const items = data as ContentItem[];
        return {
          text:
            items.length > 0
              ? items
                  .map(
                    (i) =>
                      `${i.type === "dir" ? "dir " : "file"} ${i.path}${i.type === "file" ? ` (${i.size ?? 0} B)` : ""}`,
                  )
                  .join("\n")
              : `${args.path || "/"} is empty.`,
          data: { kind: "dir", entries: items.map((i) => ({ path: i.path, type: i.type })) },
        };
      }
      const item = data as ContentItem;
      if (item.type !== "file" || item.content === undefined)
        return { text: `${item.path} is a ${item.type}, not a file or folder.`, data: { kind: item.type } };
      const text =
        item.encoding === "base64" ? Buffer.from(item.content, "base64").toString("utf8") : item.content;
      return {
        text: truncate(text, FILE_LIMIT, "the file is longer"),
        data: { kind: "file", path: item.path, sha: item.sha, size: item.size },
      };
    }),
});

interface CodeHit {
  path: string;
  repository: { full_name: string };
  html_url: string;
}

export const searchCode = action({
  name: "search_code",
  description:
    "Search code on GitHub with GitHub's code search syntax (e.g. `useState repo:acme/web language:ts`). Returns matching files.",
  effect: "read",
  parameters: Type.Object({ query: Type.String({ minLength: 1 }), limit: Limit }),
  run: (args, { client, attempt, signal }) =>
    attempt(() =>
      client.search.code({ q: args.query, per_page: args.limit ?? 30, ...requestOptions(signal) }),
    ).map(({ data }) => {
      const hits = data.items as CodeHit[];
      const more = data.total_count > hits.length ? `\n(${data.total_count} matches in all)` : "";
      return {
        text:
          hits.length > 0
            ? `${hits.map((h) => `${h.repository.full_name}/${h.path}`).join("\n")}${more}`
            : `No code matches ${args.query}.`,
        data: {
          total: data.total_count,
          files: hits.map((h) => ({ repo: h.repository.full_name, path: h.path })),
        },
      };
    }),
});

export const searchIssues = action({
  name: "search_issues",
  description:
    "Search issues and pull requests with GitHub's search syntax (e.g. `repo:acme/web is:issue is:open crash`).",
  effect: "read",
  parameters: Type.Object({ query: Type.String({ minLength: 1 }), limit: Limit }),
  run: (args, { client, attempt, signal }) =>
    attempt(() =>
      client.search.issuesAndPullRequests({
        q: args.query,
        per_page: args.limit ?? 30,
        ...requestOptions(signal),
      }),
    ).map(({ data }) => {
      const hits = data.items as unknown as (IssueLike & { repository_url?: string })[];
      const repoOf = (i: { repository_url?: string }) => i.repository_url?.split("/repos/")[1] ?? "";
      const more = data.total_count > hits.length ? `\n(${data.total_count} matches in all)` : "";
      return {
        text:
          hits.length > 0
            ? `${hits.map((i) => `${repoOf(i)}${i.pull_request ? " PR" : ""} ${issueLine(i)}`).join("\n")}${more}`
            : `Nothing matches ${args.query}.`,
        data: {
          total: data.total_count,
          items: hits.map((i) => ({ repo: repoOf(i), number: i.number, title: i.title, url: i.html_url })),
        },
      };
    }),
});
