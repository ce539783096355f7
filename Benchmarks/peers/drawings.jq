# B6's reshape in jq: snake_case keys to camelCase, and each element of the polymorphic
# "shapes" by its "type", which each shape's output carries. Same output as $BenchDrawing of
# Benchmarks/contexts/drawings.mappings.
{
  drawingId: .drawing_id,
  title: .title,
  ownerName: .owner_name,
  createdAt: .created_at,
  layerCount: .layer_count,
  isPublic: .is_public,
  viewCount: .view_count,
  opacity: .opacity,
  tags: .tags,
  description: .description,
  shapes: [.shapes[] |
    if .type == "circle" then
      {type: .type, centerX: .center_x, centerY: .center_y, radius: .radius, strokeColor: .stroke_color}
    elif .type == "rect" then
      {type: .type, originX: .origin_x, originY: .origin_y, width: .width, height: .height, strokeColor: .stroke_color}
    elif .type == "label" then {type: .type, originX: .origin_x, originY: .origin_y, text: .text, fontSize: .font_size}
    else error("unknown shape type \(.type)") end]
}
