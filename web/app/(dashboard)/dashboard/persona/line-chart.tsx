/**
 * A line chart of values from 0 to 1 over time, in SVG (one line needs no chart library). Marked points
 * (drift) are drawn larger in the "bad" colour; the chart's text alternative lists every point.
 */
import { formatDate } from "@/components/ui";

export interface ChartPoint {
  /** A stable key of the point (the run's id). */
  id: string;
  /** ISO 8601. */
  at: string;
  value: number;
  marked: boolean;
}

const WIDTH = 640;
const HEIGHT = 220;
const PAD = { top: 12, right: 16, bottom: 28, left: 40 };

const percent = (v: number) => `${Math.round(v * 100)}%`;
const dateOf = (at: string) => formatDate(at);

export function LineChart({
  title,
  points,
  testId,
}: {
  title: string;
  points: ChartPoint[];
  testId?: string;
}) {
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (points.length <= 1 ? innerW / 2 : (i / (points.length - 1)) * innerW);
  const y = (v: number) => PAD.top + (1 - Math.min(1, Math.max(0, v))) * innerH;
  const path = points
    .map((p, i) => `${i === 0 ? "M" : "L"}${x(i).toFixed(1)},${y(p.value).toFixed(1)}`)
    .join(" ");
  const description = points
    .map((p) => `${dateOf(p.at)}: ${percent(p.value)}${p.marked ? " (drift)" : ""}`)
    .join("; ");
  return (
    <figure style={{ margin: 0 }} data-testid={testId}>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`${title}. ${points.length} runs. ${description}`}
        style={{ width: "100%", height: "auto", maxHeight: "16rem" }}
      >
        {[0, 0.25, 0.5, 0.75, 1].map((tick) => (
          <g key={tick}>
            <line
              x1={PAD.left}
              x2={WIDTH - PAD.right}
              y1={y(tick)}
              y2={y(tick)}
              stroke="var(--border)"
              strokeWidth={1}
            />
            <text x={PAD.left - 6} y={y(tick) + 4} textAnchor="end" fontSize="11" fill="var(--text-muted)">
              {percent(tick)}
            </text>
          </g>
        ))}
        {points.length > 1 ? <path d={path} fill="none" stroke="var(--accent)" strokeWidth={2} /> : null}
        {points.map((p, i) => (
          <circle
            key={p.id}
            cx={x(i)}
            cy={y(p.value)}
            r={p.marked ? 6 : 3.5}
            fill={p.marked ? "var(--bad)" : "var(--accent)"}
            stroke="var(--surface)"
            strokeWidth={1.5}
            data-drift={p.marked ? "true" : undefined}
          />
        ))}
        {points.length > 0 ? (
          <>
            <text x={x(0)} y={HEIGHT - 8} fontSize="11" fill="var(--text-muted)" textAnchor="start">
              {formatDate(points[0].at, { style: "date" })}
            </text>
            <text
              x={x(points.length - 1)}
              y={HEIGHT - 8}
              fontSize="11"
              fill="var(--text-muted)"
              textAnchor="end"
            >
              {formatDate(points[points.length - 1].at, { style: "date" })}
            </text>
          </>
        ) : null}
      </svg>
      <figcaption className="muted">{title}. Red points mark a run where drift was detected.</figcaption>
    </figure>
  );
}
