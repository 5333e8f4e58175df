/** Downloads the diagram for slides: as the SVG itself, or drawn into a PNG at twice its size. */
export function downloadSvg(svg: SVGSVGElement, filename: string): void {
  download(new Blob([serialise(svg)], { type: "image/svg+xml" }), filename);
}

export async function downloadPng(svg: SVGSVGElement, filename: string): Promise<void> {
  const { width, height } = svg.viewBox.baseVal;
  const url = URL.createObjectURL(new Blob([serialise(svg)], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    await new Promise<void>((resolve, reject) => {
      image.onload = () => resolve();
      image.onerror = () => reject(new Error("the diagram could not be drawn"));
      image.src = url;
    });
    const canvas = document.createElement("canvas");
    canvas.width = width * 2;
    canvas.height = height * 2;
    const context = canvas.getContext("2d");
    if (!context) return;
    context.fillStyle = "#fff";
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.drawImage(image, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, "image/png"));
    if (blob) download(blob, filename);
  } finally {
    URL.revokeObjectURL(url);
  }
}

function serialise(svg: SVGSVGElement): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(svg)}`;
}

function download(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
