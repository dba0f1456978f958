import { type ReactNode, useId } from "react";

/**
 * A titled section of a page (a `section` labelled by its h2), with optional actions beside the title
 * and a footer.
 */
export function Card({
  title,
  description,
  actions,
  footer,
  children,
  testId,
  className,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
  footer?: ReactNode;
  children?: ReactNode;
  testId?: string;
  className?: string;
}) {
  const id = useId();
  return (
    <section className={["card", className ?? ""].join(" ").trim()} aria-labelledby={id} data-testid={testId}>
      <div className="card-header">
        <div>
          <h2 id={id}>{title}</h2>
          {description ? <p className="card-description">{description}</p> : null}
        </div>
        {actions ? <div className="card-actions">{actions}</div> : null}
      </div>
      {children ? <div className="card-body">{children}</div> : null}
      {footer ? <div className="card-footer">{footer}</div> : null}
    </section>
  );
}
