export { Alert, ErrorAlert, Notice } from "./alert";
export { Button, type ButtonVariant } from "./button";
export { Card } from "./card";
export { ConfirmButton } from "./confirm-button";
export { type Column, DataTable } from "./data-table";
export { EmptyState } from "./empty-state";
export { Field, SelectField } from "./field";
export { PageHeader } from "./page-header";
export { StatusBadge, type Tone, toneOf } from "./status-badge";
