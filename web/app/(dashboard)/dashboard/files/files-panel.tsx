"use client";

import { useState } from "react";
import { ApiError, api, apiErrorOf, messageOf, useResource } from "@/components/data";
import { ActionStatus, FormError, useAction } from "@/components/forms";
import {
  Button,
  Card,
  ConfirmButton,
  DataTable,
  DateTime,
  EmptyState,
  Field,
  SelectField,
} from "@/components/ui";
import type { AgentChoice } from "@/lib/agents/choices";
import type { FileList, FileQuota, FileView, UploadedFile } from "@/lib/files/inputs";
import { formatBytes } from "@/lib/files/sizes";

/** Two sizes in words that tell them apart: exact bytes when rounding would write both the same. */
function sizesApart(size: number, limit: number): [string, string] {
  const [a, b] = [formatBytes(size), formatBytes(limit)];
  return a === b ? [`${size.toLocaleString()} bytes`, `${limit.toLocaleString()} bytes`] : [a, b];
}

/**
 * Why `file` cannot be uploaded, known before sending it: bigger than the per-file limit (first: deleting
 * files would not help), else bigger than the free space left. Null when it fits (or the quota is unknown).
 */
function tooBigFor(file: File, quota: FileQuota | undefined): string | null {
  if (!quota) return null;
  if (file.size > quota.maxFileBytes) {
    const [size, limit] = sizesApart(file.size, quota.maxFileBytes);
    return `“${file.name}” (${size}) is bigger than the per-file limit of ${limit}.`;
  }
  const free = Math.max(0, quota.quotaBytes - quota.usedBytes);
  if (file.size > free) {
    const [size, room] = sizesApart(file.size, free);
    return `“${file.name}” (${size}) is bigger than the free space left: ${room} free of your ${formatBytes(quota.quotaBytes)}. Delete files to make room, then try again.`;
  }
  return null;
}

/** The upload's failure in words; the server's 413 names the file and the limit it passed. */
function uploadFailure(err: unknown, filename: string): string {
  if (err instanceof ApiError && err.code === "storage_limit_exceeded")
    return `${err.message}. Delete files to make room, then try again.`;
  if (err instanceof ApiError && err.status === 413) return `${err.message}.`;
  return `“${filename}” was not uploaded: ${messageOf(err)}`;
}

/**
 * POST /api/files with the form, reporting the share sent so far (XMLHttpRequest: fetch cannot report
 * upload progress). Resolves with the uploaded file; rejects with the API's error.
 */
function uploadWithProgress(form: FormData, onProgress: (fraction: number) => void): Promise<UploadedFile> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/files");
    xhr.responseType = "json";
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      const body = (xhr.response ?? {}) as Record<string, unknown>;
      if (xhr.status === 201) resolve((body as { file: UploadedFile }).file);
      else reject(apiErrorOf(new Response(null, { status: xhr.status }), body));
    };
    xhr.onerror = () => reject(new Error("the connection failed"));
    xhr.send(form);
  });
}

/** The user's files: the quota used, the upload form (with progress), the list with download and delete. */
export function FilesPanel({ agents }: { agents: AgentChoice[] }) {
  const list = useResource<FileList>("/api/files");
  const quota = useResource<FileQuota>("/api/files/quota");
  const [progress, setProgress] = useState<number | null>(null);
  const agentName = new Map(agents.map((a) => [a.id, a.name]));
  // Uploaded, deleted or not, the list and the quota are read again.
  const action = useAction({
    after: () => {
      setProgress(null);
      return Promise.all([list.reload(), quota.reload()]);
    },
  });

  async function upload(data: FormData, form: HTMLFormElement) {
    const file = data.get("file");
    if (!(file instanceof File) || file.name === "") throw new FormError("Choose a file to upload.", "file");
    const tooBig = tooBigFor(file, quota.data);
    if (tooBig) throw new FormError(tooBig, "file");
    // The agent first: the server checks it before storing any byte.
    const body = new FormData();
    body.set("agentId", String(data.get("agentId") ?? ""));
    body.set("file", file);
    setProgress(0);
    const uploaded = await uploadWithProgress(body, setProgress).catch((err: unknown) => {
      throw new FormError(uploadFailure(err, file.name), "file");
    });
    form.reset();
    return `Uploaded “${uploaded.name}” (${formatBytes(uploaded.size)}).`;
  }

  const remove = (file: FileView) =>
    action.run(async () => {
      await api("/api/files", { method: "DELETE", json: { fileId: file.id } });
      return `Deleted “${file.filename}”.`;
    }, file.id);

  const uploading = progress !== null;
  return (
    <>
      <Card
        title="Upload a file"
        testId="files-upload"
        description={
          quota.data
            ? `Up to ${formatBytes(quota.data.maxFileBytes)} per file; ${formatBytes(quota.data.quotaBytes)} of storage on your plan.`
            : undefined
        }
      >
        {agents.length === 0 ? (
          <EmptyState title="No agent yet" action={<a href="/dashboard/agent">Deploy your agent</a>}>
            Files are attached to an agent: deploy one first.
          </EmptyState>
        ) : (
          <form
            method="post"
            onSubmit={action.onSubmit(upload)}
            aria-label="Upload a file"
            aria-busy={uploading || undefined}
          >
            <SelectField label="Agent" name="agentId" required defaultValue={agents[0]?.id}>
              {agents.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </SelectField>
            <Field
              label="File"
              name="file"
              type="file"
              required
              error={action.fieldErrors.file}
              disabled={uploading}
            />
            {uploading ? (
              <div className="field">
                <label htmlFor="upload-progress">Uploading… {Math.round((progress ?? 0) * 100)} %</label>
                <progress id="upload-progress" max={1} value={progress ?? 0} style={{ width: "100%" }} />
              </div>
            ) : null}
            <Button type="submit" busy={uploading} busyLabel="Uploading…">
              Upload
            </Button>
          </form>
        )}
      </Card>
      <Card
        title="Your files"
        testId="files-list"
        description={
          quota.data ? (
            <span data-testid="files-quota">
              {formatBytes(quota.data.usedBytes)} of {formatBytes(quota.data.quotaBytes)} used
            </span>
          ) : undefined
        }
      >
        {quota.data ? (
          <progress
            aria-label="Storage used"
            max={quota.data.quotaBytes}
            value={Math.min(quota.data.usedBytes, quota.data.quotaBytes)}
            style={{ width: "100%" }}
          />
        ) : null}
        {list.loading ? <p className="muted">Loading…</p> : null}
        {list.data ? (
          <DataTable
            caption="Your files"
            captionHidden
            testId="files-table"
            rows={list.data.files}
            rowKey={(f) => f.id}
            empty={<EmptyState title="No files yet">Upload one above; your agents can use it.</EmptyState>}
            columns={[
              { header: "Name", cell: (f) => <strong className="break-anywhere">{f.filename}</strong> },
              { header: "Agent", hideOnNarrow: true, cell: (f) => agentName.get(f.agentId) ?? f.agentId },
              { header: "Size", align: "end", cell: (f) => formatBytes(f.size) },
              { header: "Type", hideOnNarrow: true, cell: (f) => <code>{f.mimeType}</code> },
              {
                header: "Uploaded",
                hideOnNarrow: true,
                cell: (f) => <DateTime value={f.createdAt} />,
              },
              {
                header: "Actions",
                align: "end",
                cell: (f) => (
                  <span className="actions">
                    <a
                      className="btn btn-secondary btn-sm"
                      href={f.url}
                      download={f.filename}
                      aria-label={`Download ${f.filename}`}
                    >
                      Download
                    </a>
                    <ConfirmButton
                      size="sm"
                      aria-label={`Delete ${f.filename}`}
                      question={`Delete “${f.filename}”? It cannot be restored.`}
                      confirmLabel="Delete file"
                      onConfirm={() => remove(f)}
                    >
                      Delete
                    </ConfirmButton>
                  </span>
                ),
              },
            ]}
          />
        ) : null}
        <ActionStatus action={action} statusTestId="files-status" loadError={list.error} />
      </Card>
    </>
  );
}
