<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>CheckpointPanel</name>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="156" />
        <source>Checkpointed segments keep only their inputs; their activations are recomputed in backward when a node needs them. Click a re-run (or use Up/Down) to go to that step.</source>
        <translation>检查点分段只保留输入；其激活值会在反向传播中某个节点需要时重新计算。点击一次重算（或用上/下方向键）即可跳到对应的步骤。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="158" />
        <source>Each checkpoint call of the script, in call order</source>
        <translation>脚本中的每次 checkpoint 调用，按调用顺序排列</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="159" />
        <source>Each time backward re-ran a segment, in order. Click to go to that step of the backward run.</source>
        <translation>反向传播每一次重新运行分段的记录，按先后顺序排列。点击可跳到反向传播中的对应步骤。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="175" />
        <source>reentrant</source>
        <translation>可重入</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="177" />
        <source>non-reentrant</source>
        <translation>非可重入</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="182" />
        <source>1 op</source>
        <translation>1 个操作</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="182" />
        <source>{0} ops</source>
        <translation>{0} 个操作</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="186" />
        <source>checkpoint {0}</source>
        <translation>检查点 {0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="190" />
        <source>line {0}</source>
        <translation>第 {0} 行</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="196" />
        <source>a node that was not captured</source>
        <translation>一个未被捕获的节点</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="205" />
        <source>run #{0}, step {1}</source>
        <translation>第 {0} 次反向传播，第 {1} 步</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="206" />
        <source>outside a recorded backward</source>
        <translation>不在已记录的反向传播中</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="207" />
        <source>checkpoint {0} re-ran {1} of {2} ops</source>
        <translation>检查点 {0} 重新运行了 {2} 个操作中的 {1} 个</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="211" />
        <source>stopped early</source>
        <translation>提前停止</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="212" />
        <source>needed by {0}</source>
        <translation>由 {0} 触发</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="269" />
        <source>No segment was re-run: no backward needed their saved tensors.</source>
        <translation>没有分段被重新运行：没有任何反向传播需要它们保存的张量。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="294" />
        <source>No checkpoint calls were recorded.</source>
        <translation>没有记录到 checkpoint 调用。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="302" />
        <source>Kept: the inputs {0}. Only the inputs are kept; the segment's activations are recomputed in backward.</source>
        <translation>保留：输入 {0}。只保留输入；分段的激活值会在反向传播中重新计算。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="305" />
        <source>Kept: no tensor inputs. The segment's activations are recomputed in backward.</source>
        <translation>保留：没有张量输入。分段的激活值会在反向传播中重新计算。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="308" />
        <source>preserve_rng_state=False and the segment uses dropout: the re-run draws a new random mask, which may differ from the forward's, so the gradients may not match the forward.</source>
        <translation>preserve_rng_state=False 且分段中使用了 dropout：重新运行时会抽取新的随机掩码，可能与前向传播时的不同，因此梯度可能与前向传播不一致。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="312" />
        <source>The call raised: {0}</source>
        <translation>调用抛出异常：{0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="317" />
        <source>Stopped early: every needed tensor was recovered after {0} of {1} ops.</source>
        <translation>提前停止：运行了 {1} 个操作中的 {0} 个后，所需的张量已全部恢复。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="321" />
        <source>The re-run raised: {0}</source>
        <translation>重新运行时抛出异常：{0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="323" />
        <source>Never re-run: no recorded backward needed its saved tensors.</source>
        <translation>从未重新运行：没有已记录的反向传播需要它保存的张量。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="333" />
        <source>re-run {0} op</source>
        <translation>第 {0} 次重算的操作</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="333" />
        <source>re-run op</source>
        <translation>重算的操作</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="334" />
        <source>forward op</source>
        <translation>前向操作</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="345" />
        <source>— not re-run</source>
        <translation>— 未重新运行</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="454" />
        <source>&lt;b&gt;Recomputing checkpoint {0}&lt;/b&gt; ({1}) because {2} needs its saved tensors.</source>
        <translation>&lt;b&gt;正在重新计算检查点 {0}&lt;/b&gt;（{1}），因为 {2} 需要它保存的张量。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="465" />
        <source>Next: checkpoint {0} is recomputed ({1}) at run #{2}, step {3}, when {4} needs its saved tensors.</source>
        <translation>下一次：在第 {2} 次反向传播的第 {3} 步，{4} 需要保存的张量时，检查点 {0} 将被重新计算（{1}）。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/panel.py" line="461" />
        <source>No more recomputations in the recorded backward runs after this step.</source>
        <translation>在已记录的反向传播中，此步之后不再有重新计算。</translation>
    </message>
</context>
<context>
    <name>CodeEditor</name>
    <message>
        <location filename="../../app/panels/editor.py" line="77" />
        <source>Write PyTorch code here, then press Run (Ctrl+Enter).</source>
        <translation>在这里编写 PyTorch 代码，然后按“运行”（Ctrl+Enter）。</translation>
    </message>
</context>
<context>
    <name>CodeGraphLink</name>
    <message>
        <location filename="../../app/panels/code_link/link.py" line="93" />
        <source>Recomputing checkpoint {0}: backward runs this segment's forward again (op {1} of {2})</source>
        <translation>正在重算检查点 {0}：反向传播再次运行这一段的前向（第 {1} 个算子，共 {2} 个）</translation>
    </message>
    <message>
        <location filename="../../app/panels/code_link/link.py" line="101" />
        <source>Backward step {0} of {1}: {2} computes the gradient of this line's operation</source>
        <translation>反向传播第 {0} 步（共 {1} 步）：{2} 正在计算这一行运算的梯度</translation>
    </message>
</context>
<context>
    <name>ConsoleInputLine</name>
    <message>
        <location filename="../../app/panels/console_input_line.py" line="30" />
        <source>The script waits for input(): type a line and press Enter</source>
        <translation>脚本正在等待 input()：输入一行后按回车</translation>
    </message>
    <message>
        <location filename="../../app/panels/console_input_line.py" line="31" />
        <source>What you type here is the line the script's input() returns (Enter sends it; Ctrl+D ends the input, the script then gets EOFError)</source>
        <translation>在这里输入的内容就是脚本中 input() 返回的那一行（回车发送；Ctrl+D 结束输入，脚本随后会得到 EOFError）</translation>
    </message>
    <message>
        <location filename="../../app/panels/console_input_line.py" line="33" />
        <source>Input for the script</source>
        <translation>给脚本的输入</translation>
    </message>
</context>
<context>
    <name>EnvironmentController</name>
    <message>
        <location filename="../../app/environments/controller.py" line="81" />
        <source>The Python chosen in Preferences no longer exists: {path}</source>
        <translation>首选项中选择的 Python 已不存在：{path}</translation>
    </message>
    <message>
        <location filename="../../app/environments/controller.py" line="82" />
        <source>Scripts run with the app's own Python. Choose another one in Tools ▸ Preferences.</source>
        <translation>脚本改用本应用自带的 Python 运行。可在“工具 ▸ 首选项”中另选一个。</translation>
    </message>
    <message>
        <location filename="../../app/environments/controller.py" line="91" />
        <source>Scripts now run with {python}.</source>
        <translation>脚本现在使用 {python} 运行。</translation>
    </message>
    <message>
        <location filename="../../app/environments/controller.py" line="92" />
        <source>the app's own Python ({path})</source>
        <translation>本应用自带的 Python（{path}）</translation>
    </message>
    <message>
        <location filename="../../app/environments/controller.py" line="146" />
        <source>&amp;Tools</source>
        <translation>工具(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../app/environments/controller.py" line="148" />
        <source>&amp;Preferences…</source>
        <translation>首选项(&amp;P)…</translation>
    </message>
    <message>
        <location filename="../../app/environments/controller.py" line="149" />
        <source>Choose the Python interpreter that runs your scripts</source>
        <translation>选择运行脚本的 Python 解释器</translation>
    </message>
    <message>
        <location filename="../../app/environments/controller.py" line="150" />
        <source>Manage &amp;Packages…</source>
        <translation>管理包(&amp;P)…</translation>
    </message>
    <message>
        <location filename="../../app/environments/controller.py" line="151" />
        <source>See, install and uninstall the packages of the Python that runs your scripts</source>
        <translation>查看、安装和卸载运行脚本的 Python 中的包</translation>
    </message>
</context>
<context>
    <name>EnvironmentTexts</name>
    <message>
        <location filename="../../app/environments/texts.py" line="42" />
        <source>A module the script imports was not installed where it ran.</source>
        <translation>脚本导入的某个模块在它运行的环境中没有安装。</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="44" />
        <source>The module '{module}' was not installed in the Python that recorded this trace. Open its script and run it here: the app then says how to install what is missing.</source>
        <translation>录制此轨迹的 Python 中没有安装模块“{module}”。请打开它的脚本并在这里运行：应用随后会告诉你如何安装缺少的包。</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="49" />
        <source>The module '{module}' is not installed in the Python that runs your scripts ({python}). Install the package '{distribution}' into it - with the link below, or in a terminal:
    {command}
then run the script again. (If '{module}' is a file of your own, put it in the script's folder.)</source>
        <translation>运行脚本的 Python（{python}）中没有安装模块 '{module}'。请把包 '{distribution}' 安装到这个 Python 中——点击下面的链接，或在终端中运行：
    {command}
然后重新运行脚本。（如果 '{module}' 是你自己的文件，请把它放在脚本所在的文件夹中。）</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="55" />
        <source>This Python has no pip: first run {python} -m ensurepip, or install the package with your environment's own tool (conda install).</source>
        <translation>这个 Python 没有 pip：请先运行 {python} -m ensurepip，或用环境自己的工具（conda install）安装这个包。</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="61" />
        <source>The package '{top}' is installed, but it has no module '{module}': check the spelling, or whether your version of '{top}' has it (it may be newer or older than the code expects).</source>
        <translation>包 '{top}' 已安装，但其中没有模块 '{module}'：请检查拼写，或确认你安装的 '{top}' 版本是否包含它（可能比代码所需的版本更新或更旧）。</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="73" />
        <source>Install {name} into this Python…</source>
        <translation>把 {name} 安装到这个 Python 中…</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="80" />
        <source>Scripts run with {python}, chosen in Tools ▸ Preferences: check it there (it lists what is missing), or go back to the app's own Python.</source>
        <translation>脚本使用在“工具 ▸ 首选项”中选择的 {python} 运行：请在那里检查它（会列出缺少的内容），或改回本应用自带的 Python。</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="88" />
        <source>CUDA visible: {devices}</source>
        <translation>可见的 CUDA 设备：{devices}</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="90" />
        <source>no CUDA device visible (scripts run on the CPU)</source>
        <translation>看不到 CUDA 设备（脚本在 CPU 上运行）</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="91" />
        <source>Python {python}, torch {torch}; {cuda}. Scripts can run here.</source>
        <translation>Python {python}，torch {torch}；{cuda}。脚本可以在这里运行。</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="94" />
        <source>There is no file at this path.</source>
        <translation>此路径下没有文件。</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="96" />
        <source>This file cannot be run as Python 3 ({detail}).</source>
        <translation>无法把这个文件当作 Python 3 运行（{detail}）。</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="98" />
        <source>Python {version} is too old: scripts need Python {need} or newer.</source>
        <translation>Python {version} 太旧：脚本需要 Python {need} 或更新版本。</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="101" />
        <source>Python {python} here lacks {missing}, which scripts need to run in it. Install with:
    {command}</source>
        <translation>这里的 Python {python} 缺少 {missing}，脚本要在其中运行需要它们。安装命令：
    {command}</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="105" />
        <source>This Python has no pip: install them with your environment's own tool (conda install).</source>
        <translation>这个 Python 没有 pip：请用环境自己的工具（conda install）安装它们。</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="109" />
        <source>torch {version} is too old: scripts need torch {need} or newer.</source>
        <translation>torch {version} 太旧：脚本需要 torch {need} 或更新版本。</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="112" />
        <source>torch is installed but importing it fails: {detail}</source>
        <translation>torch 已安装，但导入失败：{detail}</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="114" />
        <source>torch works, but the worker cannot start here: {detail}</source>
        <translation>torch 可用，但工作进程无法在这里启动：{detail}</translation>
    </message>
    <message>
        <location filename="../../app/environments/texts.py" line="116" />
        <source>The interpreter did not answer within {s} s.</source>
        <translation>解释器在 {s} 秒内没有响应。</translation>
    </message>
</context>
<context>
    <name>ErrorTexts</name>
    <message>
        <location filename="../../app/window/error_texts.py" line="50" />
        <source>It happened inside {module}, a {cls}({args}): it takes {expected} input features and got {got}.</source>
        <translation>出错的位置在 {module}，即 {cls}({args})：它接收 {expected} 个输入特征，却得到了 {got} 个。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="52" />
        <source>It happened inside {module}, a {cls}({args}).</source>
        <translation>出错的位置在 {module}，即 {cls}({args})。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="56" />
        <source>Python could not read this line: check for a missing bracket, colon, quote or comma near the marked position.</source>
        <translation>Python 无法读懂这一行：检查标记位置附近是否缺少括号、冒号、引号或逗号。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="58" />
        <source>The module was found, but a name could not be imported from it: check the spelling, or whether the installed version provides it.</source>
        <translation>找到了该模块，但无法从中导入这个名字：检查拼写，或确认已安装的版本是否提供它。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="61" />
        <source>Shape mismatch in a matrix multiplication: the left matrix is {ra}x{ca} and the right one is {rb}x{cb}. For A @ B the number of columns of A ({ca}) must equal the number of rows of B ({rb}). For nn.Linear(in_features, out_features) the last dimension of the input must be in_features. Print the .shape of both operands; you may need to transpose one (.T) or change the layer's size.</source>
        <translation>矩阵乘法的形状不匹配：左矩阵是 {ra}x{ca}，右矩阵是 {rb}x{cb}。对 A @ B，A 的列数（{ca}）必须等于 B 的行数（{rb}）。对 nn.Linear(in_features, out_features)，输入的最后一维必须等于 in_features。打印两个操作数的 .shape；可能需要转置其中一个（.T），或修改该层的大小。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="68" />
        <source>Shape mismatch in a matrix product: the inner dimensions of the two operands must agree (for A @ B, A.shape[-1] == B.shape[-2]). Print the .shape of both operands.</source>
        <translation>矩阵乘积的形状不匹配：两个操作数的内侧维度必须一致（对 A @ B，要求 A.shape[-1] == B.shape[-2]）。打印两个操作数的 .shape。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="71" />
        <source>Shape mismatch: the two tensors cannot be broadcast together. Broadcasting lines shapes up from the right; at dimension {dim} one tensor has size {a} and the other {b}, and sizes must be equal or one of them must be 1. Print both .shape values; reshape, unsqueeze or transpose one of them so the dimensions line up.</source>
        <translation>形状不匹配：这两个张量无法广播到一起。广播从右边开始对齐形状；在第 {dim} 维，一个张量的大小是 {a}，另一个是 {b}，而两者必须相等或其中一个为 1。打印两个 .shape；用 reshape、unsqueeze 或转置调整其中一个，使各维对齐。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="77" />
        <source>Shape mismatch in view/reshape: the new shape must contain exactly as many elements as the tensor has ({n}). Use -1 for the one dimension you want computed.</source>
        <translation>view/reshape 的形状不匹配：新形状的元素个数必须与张量的元素个数（{n}）完全相同。想让某一维自动算出时，把它写成 -1。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="80" />
        <source>Device mismatch: the tensors in this operation live on different devices (for example one on the CPU and one on the GPU). An operation needs all its tensors on the same device: move them with .to(device) (the script's predefined `device` variable), and move the model too with model.to(device).</source>
        <translation>设备不匹配：这个运算中的张量位于不同的设备上（例如一个在 CPU、一个在 GPU）。一个运算的所有张量必须在同一设备上：用 .to(device) 移动它们（脚本预定义的 `device` 变量），并用 model.to(device) 把模型也移过去。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="85" />
        <source>Dtype mismatch: the tensors in this operation have different data types (for example float32 and float64, or float and long). Most operations need matching dtypes: convert one with .float(), .double() or .to(other.dtype). Note that torch.tensor([1, 2]) makes integers while torch.tensor([1., 2.]) makes floats, and numpy arrays become float64.</source>
        <translation>数据类型不匹配：这个运算中的张量类型不同（例如 float32 与 float64，或浮点与 long）。大多数运算要求类型一致：用 .float()、.double() 或 .to(other.dtype) 转换其中一个。注意 torch.tensor([1, 2]) 得到整数，torch.tensor([1., 2.]) 得到浮点数，而 numpy 数组会变成 float64。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="90" />
        <source>Only floating-point (or complex) tensors can require gradients: gradients are fractional values. Create the tensor as float (torch.tensor([1., 2.]) or .float()) before setting requires_grad=True.</source>
        <translation>只有浮点（或复数）张量才能需要梯度：梯度是带小数的值。先把张量建成浮点类型（torch.tensor([1., 2.]) 或 .float()），再设置 requires_grad=True。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="94" />
        <source>In-place operation on a leaf tensor that requires grad: autograd must keep a leaf's value as it was, so ops like x += 1, x.add_(1) or x[0] = 0 are not allowed on it. To update parameters by hand, do it inside `with torch.no_grad():` (as optimizers do); otherwise write x = x + 1 to make a new tensor.</source>
        <translation>对需要梯度的叶子张量做了原地操作：autograd 必须保留叶子张量原来的值，因此不允许对它执行 x += 1、x.add_(1) 或 x[0] = 0 之类的操作。要手动更新参数，请在 `with torch.no_grad():` 中进行（优化器就是这样做的）；否则写成 x = x + 1，生成一个新张量。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="99" />
        <source>A tensor that autograd saved for the backward pass was changed in place afterwards (for example with +=, .add_(), .relu_() or an index assignment), so the gradient can no longer be computed correctly. Use the out-of-place version (x = x + 1) or clone() the tensor before modifying it.</source>
        <translation>autograd 为反向传播保存的一个张量之后被原地修改了（例如用 +=、.add_()、.relu_() 或索引赋值），因此梯度再也无法正确计算。请改用非原地的写法（x = x + 1），或在修改前先 clone() 该张量。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="104" />
        <source>Backward through the same graph twice: the first backward() freed the values the graph saved, to save memory. If you really need a second pass, call the first one as backward(retain_graph=True). In a training loop, this usually means part of the graph is reused across iterations: recompute the forward pass (the loss) inside the loop, or .detach() the tensor carried over.</source>
        <translation>对同一张计算图做了两次反向传播：第一次 backward() 为了节省内存，已经释放了图中保存的值。如果确实需要第二次，请把第一次写成 backward(retain_graph=True)。在训练循环中，这通常说明图的一部分被跨迭代重复使用了：在循环内重新计算前向（损失），或对带到下一轮的张量调用 .detach()。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="110" />
        <source>backward() on a tensor with more than one element: backward() without an argument only works for a single number (a scalar), such as a loss. Reduce the tensor first (y.sum().backward() or y.mean().backward()), or pass the gradient explicitly: y.backward(torch.ones_like(y)).</source>
        <translation>对含多个元素的张量调用了 backward()：不带参数的 backward() 只适用于单个数（标量），例如损失。先把张量归约（y.sum().backward() 或 y.mean().backward()），或显式传入梯度：y.backward(torch.ones_like(y))。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="114" />
        <source>This tensor is not part of an autograd graph: nothing it depends on has requires_grad=True (or it was computed under torch.no_grad() or after .detach()), so it has no grad_fn and there is nothing to differentiate. Create the inputs you want gradients for with requires_grad=True, e.g. torch.randn(3, requires_grad=True), and compute from them with grad enabled.</source>
        <translation>这个张量不在任何 autograd 计算图中：它所依赖的张量都没有 requires_grad=True（或它是在 torch.no_grad() 下、或 .detach() 之后算出的），所以它没有 grad_fn，没有可求导的东西。请用 requires_grad=True 创建需要梯度的输入，例如 torch.randn(3, requires_grad=True)，并在启用梯度时用它们计算。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="119" />
        <source>torch.autograd.grad was asked for the gradient with respect to a tensor the output does not depend on. Check the inputs list, or pass allow_unused=True to get None for it.</source>
        <translation>torch.autograd.grad 被要求对一个输出并不依赖的张量求梯度。检查输入列表，或传入 allow_unused=True，让它对该张量返回 None。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="122" />
        <source>Something is None where a tensor was expected. If it is a .grad: .grad is only filled for leaf tensors that require grad (created by you with requires_grad=True), and only after backward() ran. For an intermediate tensor, call t.retain_grad() before backward().</source>
        <translation>这里本应是张量，却是 None。如果是 .grad：只有需要梯度的叶子张量（你用 requires_grad=True 创建的）才会填入 .grad，而且要在 backward() 运行之后。对中间张量，请在 backward() 之前调用 t.retain_grad()。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="126" />
        <source>input() found no line to read: the input ended. `autogradviz trace` and `export` run a script without a console, so input() gets end of input there; in the app, type the line in the Output pane's input box (Ctrl+D there ends the input). Put the values in the script to run it anywhere.</source>
        <translation>input() 没有读到任何一行：输入已经结束。`autogradviz trace` 和 `export` 在没有控制台的情况下运行脚本，因此那里的 input() 只会读到输入结束；在应用中，请在“输出”面板的输入框里键入这一行（在那里按 Ctrl+D 结束输入）。若要在任何地方都能运行，请把这些值直接写进脚本。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="131" />
        <source>torch.utils.checkpoint.checkpoint was given keyword argument(s) it would have to pass on to the checkpointed function ({names}), and the reentrant variant cannot: it is built on a torch.autograd.Function, which takes only positional arguments. Reentrant is what use_reentrant=True selects, and also what checkpoint does today when use_reentrant is not given. Fix it in one of three ways: pass use_reentrant=False (the recommended variant, which hands keyword arguments on); pass the values positionally, checkpoint(fn, x, value, use_reentrant=True); or bind them first, checkpoint(functools.partial(fn, {first}=value), x, ...). If {names} was meant as an option of checkpoint itself, check its spelling.</source>
        <translation>torch.utils.checkpoint.checkpoint 收到了需要转交给被检查点函数的关键字参数（{names}），而可重入变体做不到：它基于 torch.autograd.Function，只接受位置参数。use_reentrant=True 选择的就是可重入变体；未给出 use_reentrant 时，checkpoint 目前也使用它。有三种改法：传入 use_reentrant=False（推荐的变体，会转交关键字参数）；按位置传值，checkpoint(fn, x, value, use_reentrant=True)；或先绑定，checkpoint(functools.partial(fn, {first}=value), x, ...)。如果 {names} 本意是 checkpoint 自己的选项，请检查拼写。</translation>
    </message>
    <message>
        <location filename="../../app/window/error_texts.py" line="141" />
        <source>torch.utils.checkpoint.checkpoint_sequential was given keyword argument(s) it does not know ({names}). Its only options are use_reentrant and preserve_rng_state: each segment receives just the output of the previous one, so there is nothing to pass keyword arguments to. Check the spelling, or bind such values into the modules or functions (functools.partial) before passing them.</source>
        <translation>torch.utils.checkpoint.checkpoint_sequential 收到了它不认识的关键字参数（{names}）。它只有 use_reentrant 和 preserve_rng_state 两个选项：每一段只接收上一段的输出，没有地方可以转交关键字参数。请检查拼写，或在传入之前把这些值绑定到模块或函数中（functools.partial）。</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <location filename="../../app/export/dialog.py" line="39" />
        <location filename="../../app/export/dialog.py" line="185" />
        <source>Export graph</source>
        <translation>导出计算图</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="43" />
        <source>PNG image</source>
        <translation>PNG 图片</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="43" />
        <source>SVG vector image</source>
        <translation>SVG 矢量图</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="44" />
        <source>PDF document</source>
        <translation>PDF 文档</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="44" />
        <source>Graphviz DOT source</source>
        <translation>Graphviz DOT 源文件</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="45" />
        <source>Animated GIF of the backward run</source>
        <translation>反向传播的 GIF 动画</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="46" />
        <source>Web page of the backward run (interactive)</source>
        <translation>反向传播的网页（可交互）</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="54" />
        <source>Every step: a folder of pictures (PNG, SVG) or a PDF handout, one page per step</source>
        <translation>每一步：一个图片文件夹（PNG、SVG），或 PDF 讲义，每步一页</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="56" />
        <source>Caption under the picture: the step and its rule</source>
        <translation>图下说明：这一步及其规则</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="57" />
        <source>Whole graph</source>
        <translation>整张计算图</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="58" />
        <source>Visible area only</source>
        <translation>仅可见区域</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="71" />
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="88" />
        <source>Format:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="89" />
        <source>Scale:</source>
        <translation>缩放：</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="91" />
        <source>Area:</source>
        <translation>范围：</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="93" />
        <source>File:</source>
        <translation>文件：</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="98" />
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="147" />
        <source>One file stepping through backward run {0} ({1} steps); it opens in any browser, offline.</source>
        <translation>一个文件，逐步演示第 {0} 次反向传播（共 {1} 步）；任何浏览器都能离线打开。</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="151" />
        <source>Animates backward run {0}: {1} frames, one per step.</source>
        <translation>动画展示第 {0} 次反向传播：{1} 帧，每步一帧。</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="155" />
        <location filename="../../app/export/dialog.py" line="261" />
        <source>There is no backward run to animate.</source>
        <translation>没有可以制作动画的反向传播。</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="157" />
        <source>The graph's structure and positions, without the stepper state.</source>
        <translation>计算图的结构和位置，不含步进状态。</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="160" />
        <source>Exports what the view shows now: backward run {0}, step {1}.</source>
        <translation>导出视图当前显示的内容：第 {0} 次反向传播，第 {1} 步。</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="163" />
        <source>Exports the graph as the view shows it.</source>
        <translation>按视图当前的样子导出计算图。</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="184" />
        <source>{0} files (*.{1})</source>
        <translation>{0} 文件 (*.{1})</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="208" />
        <source>Choose a file to export to.</source>
        <translation>选择要导出到的文件。</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="214" />
        <source>There is no graph to export yet.</source>
        <translation>还没有可以导出的计算图。</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="234" />
        <source>Export cancelled; nothing was written.</source>
        <translation>导出已取消；没有写入任何内容。</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="240" />
        <source>Export failed: {0}</source>
        <translation>导出失败：{0}</translation>
    </message>
    <message>
        <location filename="../../app/export/dialog.py" line="249" />
        <source>Wrote {0}.</source>
        <translation>已写入 {0}。</translation>
    </message>
    <message>
        <source>Legend: what each colour, border and badge means</source>
        <translation>图例：每种颜色、边框和徽标的含义</translation>
    </message>
</context>
<context>
    <name>FileController</name>
    <message>
        <location filename="../../app/window/file_controller.py" line="68" />
        <source>untitled.py</source>
        <translation>未命名.py</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="101" />
        <source>Open a script</source>
        <translation>打开脚本</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="102" />
        <location filename="../../app/window/file_controller.py" line="150" />
        <source>Python scripts (*.py);;All files (*)</source>
        <translation>Python 脚本 (*.py);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="113" />
        <source>Could not open {path}:
{error}</source>
        <translation>无法打开 {path}：
{error}</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="119" />
        <source>Opened {path}. Press Run (Ctrl+Enter) to run it.</source>
        <translation>已打开 {path}。按“运行”（Ctrl+Enter）执行它。</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="149" />
        <source>Save the script</source>
        <translation>保存脚本</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="167" />
        <source>(no recent files)</source>
        <translation>（没有最近文件）</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="170" />
        <source>Clear Recent Files</source>
        <translation>清除最近文件</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="204" />
        <source>Restored the text you were editing when the app last closed unexpectedly. Press Run (Ctrl+Enter) to run it, or pick a lesson.</source>
        <translation>已恢复应用上次意外关闭时你正在编辑的内容。按“运行”（Ctrl+Enter）执行它，或选择一节课程。</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="217" />
        <source>Could not save {path}: {error}.
The file on disk is unchanged, and your text is still in the editor.</source>
        <translation>无法保存 {path}：{error}。
磁盘上的文件没有改动，你的代码仍在编辑器中。</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="223" />
        <source>Saved {path}</source>
        <translation>已保存 {path}</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="229" />
        <source>it is not a regular file (a folder, a FIFO or a device)</source>
        <translation>它不是普通文件（而是文件夹、FIFO 或设备）</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="230" />
        <location filename="../../app/window/file_controller.py" line="231" />
        <source>the disk is full</source>
        <translation>磁盘已满</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="232" />
        <source>the file is larger than this system allows</source>
        <translation>文件超过了本系统允许的大小</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="233" />
        <location filename="../../app/window/file_controller.py" line="234" />
        <source>no permission to write there</source>
        <translation>没有在那里写入的权限</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="235" />
        <source>the disk is read-only</source>
        <translation>磁盘是只读的</translation>
    </message>
    <message>
        <location filename="../../app/window/file_controller.py" line="255" />
        <source>The script has unsaved changes. Save them first?</source>
        <translation>脚本有未保存的修改。要先保存吗？</translation>
    </message>
</context>
<context>
    <name>GradScalerPanel</name>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="105" />
        <source>Each GradScaler call the script made, in order. Per optimizer the stage goes READY → UNSCALED → STEPPED and back to READY at update(). Left/Right step through the calls.</source>
        <translation>脚本按顺序进行的每一次 GradScaler 调用。每个优化器的阶段依次为 READY → UNSCALED → STEPPED，调用 update() 后回到 READY。用左/右方向键逐个查看调用。</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="108" />
        <source>iteration</source>
        <translation>迭代</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="108" />
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="108" />
        <source>scale</source>
        <translation>缩放系数</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="108" />
        <source>found inf/NaN</source>
        <translation>发现 inf/NaN</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="109" />
        <source>step skipped</source>
        <translation>跳过更新</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="109" />
        <source>grad norm (scaled)</source>
        <translation>梯度范数（缩放后）</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="109" />
        <source>grad norm (unscaled)</source>
        <translation>梯度范数（反缩放后）</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="110" />
        <source>Click a call to see the stages after it and its line in the editor</source>
        <translation>点击一次调用，查看它之后各优化器的阶段，并在编辑器中定位到它所在的行</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="158" />
        <source>line {0}</source>
        <translation>第 {0} 行</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="160" />
        <source>refused: “{0}”</source>
        <translation>被拒绝：“{0}”</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="240" />
        <source>&lt;b&gt;{0}()&lt;/b&gt; was refused: &lt;span style='color:{1}'&gt;{2}: “{3}”&lt;/span&gt;</source>
        <translation>&lt;b&gt;{0}()&lt;/b&gt; 被拒绝：&lt;span style='color:{1}'&gt;{2}：“{3}”&lt;/span&gt;</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="164" />
        <source>optimizer.step() skipped</source>
        <translation>跳过了 optimizer.step()</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="166" />
        <source>scale {0} → {1}</source>
        <translation>缩放系数 {0} → {1}</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="168" />
        <source>× {0}</source>
        <translation>× {0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="188" />
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="188" />
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="224" />
        <source>No GradScaler calls were recorded.</source>
        <translation>没有记录到 GradScaler 调用。</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="243" />
        <source>&lt;b&gt;scale()&lt;/b&gt; multiplied the loss by {0}: every gradient of this backward is {0} times too large until it is unscaled.</source>
        <translation>&lt;b&gt;scale()&lt;/b&gt; 把损失乘以 {0}：这次反向传播得到的每个梯度都放大了 {0} 倍，直到被反缩放为止。</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="246" />
        <source>&lt;b&gt;unscale_()&lt;/b&gt; divided the gradients by {0} (norm {1} → {2}) and checked them for inf/NaN.</source>
        <translation>&lt;b&gt;unscale_()&lt;/b&gt; 把梯度除以 {0}（范数 {1} → {2}），并检查其中是否有 inf/NaN。</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="250" />
        <source>It unscaled the gradients itself first. </source>
        <translation>它先自行对梯度做了反缩放。</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="252" />
        <source>&lt;b&gt;step()&lt;/b&gt; found inf/NaN in the gradients and &lt;b&gt;skipped&lt;/b&gt; optimizer.step(): the parameters did not change.</source>
        <translation>&lt;b&gt;step()&lt;/b&gt; 在梯度中发现了 inf/NaN，于是&lt;b&gt;跳过&lt;/b&gt;了 optimizer.step()：参数没有改变。</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="254" />
        <source>&lt;b&gt;step()&lt;/b&gt; called optimizer.step() with the unscaled gradients.</source>
        <translation>&lt;b&gt;step()&lt;/b&gt; 用反缩放后的梯度调用了 optimizer.step()。</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="256" />
        <source>&lt;b&gt;update()&lt;/b&gt;: a step had inf/NaN gradients, so the scale backs off {0} → {1}.</source>
        <translation>&lt;b&gt;update()&lt;/b&gt;：有一步的梯度出现 inf/NaN，所以缩放系数回退 {0} → {1}。</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="259" />
        <source>&lt;b&gt;update()&lt;/b&gt;: enough clean iterations in a row, so the scale grows {0} → {1}.</source>
        <translation>&lt;b&gt;update()&lt;/b&gt;：已连续足够多次迭代没有溢出，所以缩放系数增大 {0} → {1}。</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/panel.py" line="261" />
        <source>&lt;b&gt;update()&lt;/b&gt;: no inf/NaN; clean iterations in a row: {0}.</source>
        <translation>&lt;b&gt;update()&lt;/b&gt;：没有 inf/NaN；连续无溢出的迭代次数：{0}。</translation>
    </message>
</context>
<context>
    <name>GraphView</name>
    <message>
        <location filename="../../app/graph/banner.py" line="188" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="189" />
        <source>Stop laying out the graph; the previous picture stays.</source>
        <translation>停止布局计算图；保留之前的画面。</translation>
    </message>
    <message>
        <location filename="../../app/graph/search.py" line="126" />
        <source>Find a node by name or operation…</source>
        <translation>按名称或运算查找节点…</translation>
    </message>
    <message>
        <location filename="../../app/graph/search.py" line="127" />
        <source>Type part of a variable name (e.g. 'loss') or an operation (e.g. 'Mul'). Enter: next match.</source>
        <translation>输入变量名的一部分（如 'loss'）或运算名（如 'Mul'）。回车：下一个匹配。</translation>
    </message>
    <message>
        <location filename="../../app/graph/search.py" line="129" />
        <source>Previous match (Shift+F3)</source>
        <translation>上一个匹配（Shift+F3）</translation>
    </message>
    <message>
        <location filename="../../app/graph/search.py" line="130" />
        <source>Next match (F3 or Enter)</source>
        <translation>下一个匹配（F3 或回车）</translation>
    </message>
    <message>
        <location filename="../../app/graph/search.py" line="131" />
        <source>Close the search bar (Esc)</source>
        <translation>关闭搜索栏（Esc）</translation>
    </message>
    <message>
        <location filename="../../app/graph/toolbar.py" line="89" />
        <source>Zoom in (+, Ctrl++ or the mouse wheel)</source>
        <translation>放大（+、Ctrl++ 或鼠标滚轮）</translation>
    </message>
    <message>
        <location filename="../../app/graph/toolbar.py" line="90" />
        <source>Zoom out (-, Ctrl+- or the mouse wheel)</source>
        <translation>缩小（-、Ctrl+- 或鼠标滚轮）</translation>
    </message>
    <message>
        <location filename="../../app/graph/toolbar.py" line="94" />
        <source>Find a node (Ctrl+F)</source>
        <translation>查找节点（Ctrl+F）</translation>
    </message>
    <message>
        <location filename="../../app/graph/toolbar.py" line="95" />
        <source>Show saved tensors</source>
        <translation>显示保存的张量</translation>
    </message>
    <message>
        <location filename="../../app/graph/toolbar.py" line="96" />
        <source>Also draw the tensors each operation saved for its backward computation (like torchviz's show_saved).</source>
        <translation>同时画出每个运算为反向计算保存的张量（类似 torchviz 的 show_saved）。</translation>
    </message>
    <message>
        <location filename="../../app/graph/toolbar.py" line="98" />
        <source>Legend</source>
        <translation>图例</translation>
    </message>
    <message>
        <location filename="../../app/graph/toolbar.py" line="99" />
        <source>Fold repeats</source>
        <translation>折叠重复层</translation>
    </message>
    <message>
        <location filename="../../app/graph/toolbar.py" line="100" />
        <source>In a big graph, draw identical layers (a TransformerEncoder's, ResNet blocks) once, marked ×N; stepping names the copy that runs.</source>
        <translation>在大图中，相同的层（TransformerEncoder 的各层、ResNet 块）只画一次，标为 ×N；单步执行时会标明正在运行的是哪一份副本。</translation>
    </message>
    <message>
        <location filename="../../app/graph/toolbar.py" line="103" />
        <source>Left to right</source>
        <translation>从左到右</translation>
    </message>
    <message>
        <location filename="../../app/graph/toolbar.py" line="104" />
        <source>Lay the graph out from left to right: long chains read better on a wide screen.</source>
        <translation>从左到右排布计算图：长链在宽屏上更易阅读。</translation>
    </message>
    <message>
        <location filename="../../app/graph/toolbar.py" line="85" />
        <source>Show or hide the legend explaining colours and badges.</source>
        <translation>显示或隐藏解释颜色和标记的图例。</translation>
    </message>
    <message>
        <location filename="../../app/graph/view.py" line="156" />
        <source>Drag to pan, wheel or +/- to zoom, double-click to centre; click a node to inspect it.</source>
        <translation>拖动平移，滚轮或 +/- 缩放，双击居中；点击节点查看详情。</translation>
    </message>
    <message>
        <location filename="../../app/graph/toolbar.py" line="81" />
        <source>The legend was hidden to leave the small view to the graph; tick to show it over the graph.</source>
        <translation>视图较小，图例已隐藏以便显示计算图；勾选可在图上显示图例。</translation>
    </message>
    <message>
        <location filename="../../app/graph/view.py" line="563" />
        <source>Layout: {0} in {1:.2f} s</source>
        <translation>布局：{0}，用时 {1:.2f} 秒</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="30" />
        <source>No graph: the last run did not finish (it was stopped, crashed or ran out of time), so the previous graph was cleared. Press Run to try again.</source>
        <translation>没有计算图：上一次运行没有完成（被停止、崩溃或超时），因此清除了之前的图。按“运行”重试。</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="35" />
        <source>{0} at line {1}</source>
        <translation>第 {1} 行的 {0}</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="39" />
        <source>No graph: the script stopped with {0} before it built an autograd graph. The Output pane says what went wrong.</source>
        <translation>没有计算图：脚本在构建 autograd 计算图之前因 {0} 停止。“输出”面板说明了出错原因。</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="41" />
        <source>No autograd graph: the script created no tensor that requires grad (try requires_grad=True).</source>
        <translation>没有自动求导计算图：脚本没有创建需要梯度的张量（试试 requires_grad=True）。</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="57" />
        <source>Large graph ({0} nodes): drawn as {1} boxes. Identical layers are drawn once (×N, with a loop-back edge); the frame's title says which copy runs. Click the title to unfold them; View ▸ Fold Repeated Layers turns folding off.</source>
        <translation>大图（{0} 个节点）：画成 {1} 个框。相同的层只画一次（×N，带一条回环边）；框的标题会标明正在运行的是哪一份副本。点击标题可将它们展开；“视图 ▸ 折叠重复层”可关闭折叠。</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="62" />
        <source>Large graph ({0} nodes): drawn as {1} boxes. A module called many times is drawn rolled: its first call, with a loop-back edge marked ×N; its frame's menu unrolls every call.</source>
        <translation>大型计算图（{0} 个节点）：画成 {1} 个框。被调用多次的模块以“卷起”的方式显示：只画第一次调用，并用一条标有 ×N 的回边表示循环；在它的框的右键菜单中可以展开每一次调用。</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="83" />
        <location filename="../../app/graph/banner.py" line="84" />
        <source>Preparing the graph…</source>
        <translation>正在准备计算图…</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="85" />
        <source>Graphviz is placing the boxes…</source>
        <translation>Graphviz 正在摆放方框…</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="86" />
        <source>Reading the Graphviz result…</source>
        <translation>正在读取 Graphviz 的结果…</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="87" />
        <location filename="../../app/graph/banner.py" line="88" />
        <location filename="../../app/graph/banner.py" line="90" />
        <source>Placing the boxes…</source>
        <translation>正在摆放方框…</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="89" />
        <source>Ordering the boxes…</source>
        <translation>正在排列方框顺序…</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="91" />
        <source>Drawing the edges…</source>
        <translation>正在绘制连线…</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="92" />
        <source>Drawing the graph…</source>
        <translation>正在绘制计算图…</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="94" />
        <location filename="../../app/graph/banner.py" line="169" />
        <source>Laying out the graph…</source>
        <translation>正在布局计算图…</translation>
    </message>
    <message>
        <location filename="../../app/graph/toolbar.py" line="91" />
        <source>Fit the graph in the view (Ctrl+0). A long graph is fitted across at a readable size, showing where backward starts; press again to see all of it.</source>
        <translation>让计算图适应视图（Ctrl+0）。很长的图会按可读的大小横向适应，并显示反向传播开始的位置；再按一次可查看全图。</translation>
    </message>
    <message>
        <location filename="../../app/graph/view.py" line="470" />
        <source>The graph could not be laid out ({0}). The previous picture is still shown.</source>
        <translation>无法布局计算图（{0}）。仍显示之前的画面。</translation>
    </message>
    <message>
        <location filename="../../app/graph/view.py" line="488" />
        <source>Layout cancelled. The previous picture is still shown.</source>
        <translation>布局已取消。仍显示之前的画面。</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="44" />
        <source>The script stopped with {0}: the graph shows what it had built until then. The Output pane says what went wrong.</source>
        <translation>脚本因 {0} 停止：图中显示的是到那时为止构建的部分。“输出”面板说明了出错原因。</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="67" />
        <source>Large graph ({0} nodes): drawn as {1} boxes. A module called many times is rolled into one box (×N): click it to see one box per call; click a box with a module name to look inside.</source>
        <translation>大型计算图（{0} 个节点）：绘制为 {1} 个框。被多次调用的模块合并成一个框（×N）：点击它可按每次调用一个框显示；点击带模块名的框可查看其内部。</translation>
    </message>
    <message>
        <location filename="../../app/graph/banner.py" line="70" />
        <source>Large graph ({0} nodes): drawn as {1} boxes, with module calls collapsed into one box each. Click a box with a module name to look inside.</source>
        <translation>大型计算图（{0} 个节点）：绘制为 {1} 个框，每次模块调用折叠成一个框。点击带模块名的框可查看其内部。</translation>
    </message>
    <message>
        <location filename="../../app/graph/search.py" line="121" />
        <source>no match</source>
        <translation>无匹配</translation>
    </message>
    <message>
        <location filename="../../app/graph/search.py" line="123" />
        <source>{0} of {1}</source>
        <translation>第 {0} 个，共 {1} 个</translation>
    </message>
</context>
<context>
    <name>InspectorPanel</name>
    <message>
        <location filename="../../app/panels/inspector.py" line="170" />
        <source>Operation</source>
        <translation>运算</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="170" />
        <source>Variable</source>
        <translation>变量</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="170" />
        <source>Module</source>
        <translation>模块</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="171" />
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="171" />
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="171" />
        <source>dtype</source>
        <translation>dtype</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="172" />
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="172" />
        <source>requires_grad</source>
        <translation>requires_grad</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="173" />
        <source>is_leaf</source>
        <translation>is_leaf</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="173" />
        <source>retains_grad</source>
        <translation>retains_grad</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="174" />
        <source>Hooks</source>
        <translation>钩子</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="174" />
        <source>Statistics</source>
        <translation>统计</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="175" />
        <source>Line</source>
        <translation>代码行</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="178" />
        <source>The autograd node: the backward function PyTorch recorded for this operation.</source>
        <translation>自动求导节点：PyTorch 为这个运算记录的反向函数。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="179" />
        <source>The name your script gave this tensor (or the parameter name).</source>
        <translation>脚本给这个张量起的名字（或参数名）。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="180" />
        <source>The nn.Module whose forward produced it.</source>
        <translation>由哪个 nn.Module 的 forward 产生。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="181" />
        <source>The line of your script that made this node (for a leaf: where it was made to require grad).</source>
        <translation>脚本中创建这个节点的那一行（叶子节点：让它需要梯度的那一行）。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="183" />
        <source>Leaf tensors were created by you, not computed; their gradients accumulate into .grad.</source>
        <translation>叶子张量由你创建而不是计算得到；它们的梯度累加到 .grad 中。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="185" />
        <source>Non-leaf tensors keep .grad only if you called retain_grad().</source>
        <translation>非叶子张量只有在调用 retain_grad() 后才保留 .grad。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="191" />
        <source>Click a node in the graph to see its details here: operation, variable name, shape, values and — while stepping through backward — the gradient it received and sent.</source>
        <translation>点击图中的节点，在这里查看详情：运算、变量名、形状、数值，以及逐步执行反向传播时它收到和发出的梯度。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="194" />
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="195" />
        <source>Values</source>
        <translation>数值</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="196" />
        <source>The tensor's values as recorded when the script ran.</source>
        <translation>脚本运行时记录下的张量数值。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="197" />
        <source>Gradients at this step</source>
        <translation>这一步的梯度</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="198" />
        <source>What this node received from its output (grad_outputs) and sent to its inputs (grad_inputs) during backward.</source>
        <translation>反向传播中这个节点从输出收到的梯度（grad_outputs）和发给输入的梯度（grad_inputs）。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="200" />
        <source>Saved for backward</source>
        <translation>为反向传播保存</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="201" />
        <source>Tensors and values this operation stored during the forward pass to compute its gradient later.</source>
        <translation>这个运算在前向传播时保存的张量和数值，用于之后计算梯度。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="203" />
        <source>Load all values</source>
        <translation>加载全部数值</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="204" />
        <source>Only the first values were sent with the trace; fetch all of them from the worker.</source>
        <translation>随记录只发送了前面一部分数值；从工作进程获取全部数值。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="206" />
        <source>Rows: leading indices; columns: the last dimension.</source>
        <translation>行：前面的下标；列：最后一个维度。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="234" />
        <source>leaf tensor (AccumulateGrad)</source>
        <translation>叶子张量（AccumulateGrad）</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="235" />
        <source>output (backward starts here)</source>
        <translation>输出（反向传播从这里开始）</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="235" />
        <source>operation (non-leaf)</source>
        <translation>运算（非叶子）</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="237" />
        <source>(unnamed)</source>
        <translation>（未命名）</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="273" />
        <source>Showing the first {0} of {1} values.</source>
        <translation>显示前 {0} 个数值，共 {1} 个。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="276" />
        <source>All {0} values.</source>
        <translation>全部 {0} 个数值。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="286" />
        <source>Loading all values from the worker…</source>
        <translation>正在从工作进程加载全部数值…</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="296" />
        <source>All {0} values loaded (showing {1}).</source>
        <translation>已加载全部 {0} 个数值（显示 {1} 个）。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="300" />
        <source>Could not load the values: {0}</source>
        <translation>无法加载数值：{0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="312" />
        <source>not read: {0}</source>
        <translation>未读取：{0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="326" />
        <source>inside a non-reentrant checkpoint segment (reading it would re-run the forward)</source>
        <translation>位于非重入式 checkpoint 段内（读取它会重新运行前向计算）</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="328" />
        <source>saved with saved_tensors_hooks (reading it would call the unpack hook)</source>
        <translation>通过 saved_tensors_hooks 保存（读取它会调用 unpack 钩子）</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="330" />
        <source>already freed by an earlier backward</source>
        <translation>已被之前的一次 backward 释放</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="332" />
        <source>changed in place after it was captured, before its values were read (activations the script cannot name are read after the script)</source>
        <translation>在被捕获之后、数值被读取之前被原地修改了（脚本中没有变量名的激活值会在脚本结束后才读取）</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="341" />
        <source> ÷ {0} → {1}</source>
        <translation> ÷ {0} → {1}</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="348" />
        <source>… and {0} more</source>
        <translation>… 另有 {0} 个</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="358" />
        <source>No backward pass was recorded for this graph.</source>
        <translation>这张计算图没有记录到反向传播。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="364" />
        <source>Backward has not started yet (step 0). Step forward to see gradients.</source>
        <translation>反向传播尚未开始（第 0 步）。向前一步即可看到梯度。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="366" />
        <source>This node has not run yet at step {0}.</source>
        <translation>到第 {0} 步时这个节点还没有执行。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="369" />
        <source>Ran at step {0}.</source>
        <translation>在第 {0} 步执行。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="372" />
        <source>This backward started from scaler.scale(loss): every gradient is {0} × the real one (shown after ÷).</source>
        <translation>这次反向传播从 scaler.scale(loss) 开始：每个梯度都是真实梯度的 {0} 倍（÷ 之后是真实值）。</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="375" />
        <source>received grad_outputs[{0}] = {1}</source>
        <translation>收到 grad_outputs[{0}] = {1}</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="381" />
        <source>sent grad_inputs[{0}] = None (that input needs no gradient)</source>
        <translation>发出 grad_inputs[{0}] = None（该输入不需要梯度）</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="383" />
        <source>sent grad_inputs[{0}] = {1}</source>
        <translation>发出 grad_inputs[{0}] = {1}</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="388" />
        <source>&lt;b&gt;.grad&lt;/b&gt; = {0}</source>
        <translation>&lt;b&gt;.grad&lt;/b&gt; = {0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="391" />
        <source>&lt;b&gt;.grad&lt;/b&gt; (retain_grad) = {0}</source>
        <translation>&lt;b&gt;.grad&lt;/b&gt;（retain_grad）= {0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="394" />
        <source>hook {0} saw {1}</source>
        <translation>钩子 {0} 收到 {1}</translation>
    </message>
    <message>
        <location filename="../../app/panels/inspector.py" line="397" />
        <source>, returned {0}</source>
        <translation>，返回 {0}</translation>
    </message>
</context>
<context>
    <name>InstallDialog</name>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="50" />
        <source>Uninstall a Package</source>
        <translation>卸载包</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="51" />
        <source>Uninstall &lt;b&gt;{names}&lt;/b&gt; from the Python that runs your scripts?</source>
        <translation>从运行脚本的 Python 中卸载 &lt;b&gt;{names}&lt;/b&gt;？</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="53" />
        <source>Install a Package</source>
        <translation>安装包</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="54" />
        <source>Install &lt;b&gt;{names}&lt;/b&gt; into the Python that runs your scripts?</source>
        <translation>把 &lt;b&gt;{names}&lt;/b&gt; 安装到运行脚本的 Python 中？</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="61" />
        <source>Python: {path}</source>
        <translation>Python：{path}</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="64" />
        <source>The same in a terminal:</source>
        <translation>在终端中的等效命令：</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="78" />
        <source>pip's output appears here.</source>
        <translation>pip 的输出会显示在这里。</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="82" />
        <source>Uninstall</source>
        <translation>卸载</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="82" />
        <source>Install</source>
        <translation>安装</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="84" />
        <source>Run pip now, in the background</source>
        <translation>现在在后台运行 pip</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="85" />
        <source>Run Again</source>
        <translation>重新运行</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="86" />
        <source>Run the script again, with the new package</source>
        <translation>使用新安装的包重新运行脚本</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="87" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="88" />
        <source>Stop pip (Esc)</source>
        <translation>停止 pip（Esc）</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="89" />
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="114" />
        <source>Running pip… (this can take a while for large packages)</source>
        <translation>正在运行 pip…（大的包可能需要一段时间）</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="124" />
        <source>Stopping pip…</source>
        <translation>正在停止 pip…</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="145" />
        <source>Uninstalled {names}.</source>
        <translation>已卸载 {names}。</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="147" />
        <source>Installed {names}. Run the script again to use it.</source>
        <translation>已安装 {names}。重新运行脚本即可使用。</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="158" />
        <source>Try Again</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="160" />
        <source>Cancelled: pip was stopped. Nothing else was changed.</source>
        <translation>已取消：pip 已停止，其他内容均未改变。</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="162" />
        <source>pip could not be started with this Python (see the log).</source>
        <translation>无法用这个 Python 启动 pip（见日志）。</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="165" />
        <source>pip failed (exit code {code}): the log below says why, often a misspelt name or no network.</source>
        <translation>pip 失败（退出码 {code}）：下面的日志说明了原因，常见的是包名拼错或没有网络。</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="171" />
        <source>This Python has no pip. Add it with {python} -m ensurepip, or install with your environment's own tool (conda install).</source>
        <translation>这个 Python 没有 pip。可用 {python} -m ensurepip 添加，或用环境自己的工具（conda install）安装。</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="174" />
        <source>pip refuses to change this Python: it belongs to your system's package manager (PEP 668). Make a virtual environment with torch (python3 -m venv ~/torch-env, then ~/torch-env/bin/pip install torch) and choose it in Tools ▸ Preferences.</source>
        <translation>pip 拒绝修改这个 Python：它由系统的包管理器管理（PEP 668）。请创建一个装有 torch 的虚拟环境（python3 -m venv ~/torch-env，然后 ~/torch-env/bin/pip install torch），并在“工具 ▸ 首选项”中选择它。</translation>
    </message>
    <message>
        <location filename="../../app/environments/install_dialog.py" line="178" />
        <source>pip found no package called {names} for this Python: check the name (the pip name can differ from the import name) or the network.</source>
        <translation>pip 没有为这个 Python 找到名为 {names} 的包：请检查包名（pip 包名可能与导入名不同）或网络。</translation>
    </message>
</context>
<context>
    <name>Legend</name>
    <message>
        <location filename="../../app/graph/legend.py" line="28" />
        <source>leaf tensor (requires grad) → .grad</source>
        <translation>叶子张量（需要梯度）→ .grad</translation>
    </message>
    <message>
        <location filename="../../app/graph/legend.py" line="29" />
        <source>leaf with retain_grad or hooks</source>
        <translation>带 retain_grad 或钩子的叶子</translation>
    </message>
    <message>
        <location filename="../../app/graph/legend.py" line="30" />
        <source>operation (non-leaf, grad_fn)</source>
        <translation>运算（非叶子，grad_fn）</translation>
    </message>
    <message>
        <location filename="../../app/graph/legend.py" line="31" />
        <source>output: backward starts here</source>
        <translation>输出：反向传播从这里开始</translation>
    </message>
    <message>
        <location filename="../../app/graph/legend.py" line="32" />
        <source>tensor saved for backward</source>
        <translation>为反向传播保存的张量</translation>
    </message>
    <message>
        <location filename="../../app/graph/legend.py" line="33" />
        <source>R  retain_grad() was called</source>
        <translation>R  调用了 retain_grad()</translation>
    </message>
    <message>
        <location filename="../../app/graph/legend.py" line="34" />
        <source>H  a hook is registered</source>
        <translation>H  注册了钩子</translation>
    </message>
    <message>
        <location filename="../../app/graph/legend.py" line="35" />
        <source>running at this step</source>
        <translation>这一步正在执行</translation>
    </message>
    <message>
        <location filename="../../app/graph/legend.py" line="36" />
        <source>already ran (✓)</source>
        <translation>已经执行（✓）</translation>
    </message>
    <message>
        <location filename="../../app/graph/legend.py" line="37" />
        <source>not run yet (faded)</source>
        <translation>尚未执行（变淡）</translation>
    </message>
    <message>
        <location filename="../../app/graph/legend.py" line="38" />
        <source>gradient flowed along this edge</source>
        <translation>梯度沿这条边流过</translation>
    </message>
    <message>
        <location filename="../../app/graph/legend.py" line="39" />
        <source>arrows point forward; backward runs against them</source>
        <translation>箭头指向前向方向；反向传播逆着箭头进行</translation>
    </message>
    <message>
        <location filename="../../app/graph/legend.py" line="43" />
        <source>Legend: how the graph is drawn. Arrows point forward (input → operation); gradients flow against them during backward.</source>
        <translation>图例：计算图的画法。箭头指向前向方向（输入 → 运算）；反向传播时梯度逆着箭头流动。</translation>
    </message>
</context>
<context>
    <name>LessonChapters</name>
    <message>
        <location filename="../../app/panels/lessons/catalog.py" line="23" />
        <source>Autograd basics</source>
        <translation>自动求导基础</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/catalog.py" line="24" />
        <source>Tensors and shapes</source>
        <translation>张量与形状</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/catalog.py" line="25" />
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/catalog.py" line="26" />
        <source>Memory and speed</source>
        <translation>内存与速度</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/catalog.py" line="27" />
        <source>Mixed precision</source>
        <translation>混合精度</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/catalog.py" line="28" />
        <source>Parallel</source>
        <translation>并行</translation>
    </message>
</context>
<context>
    <name>LessonReadingPane</name>
    <message>
        <location filename="../../app/panels/lessons/reading_pane.py" line="1" />
        <source>Show the graph</source>
        <translation>显示计算图</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/reading_pane.py" line="1" />
        <source>Put the text away (Esc, Run or a step key do too); it stays in the Lesson tab under the code</source>
        <translation>收起文字（按 Esc、运行或单步键也可以）；文字仍在代码下方的“课程”标签页中</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/reading_pane.py" line="1" />
        <source>The lesson's graph is drawn under this page. The text stays in the Lesson tab; “Read in a pane” there brings this page back.</source>
        <translation>课程的计算图画在这一页的下面。文字仍在“课程”标签页中；点那里的“在阅读窗格中打开”可再次打开这一页。</translation>
    </message>
</context>
<context>
    <name>LessonsPanel</name>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="1" />
        <source>Read in a pane</source>
        <translation>在阅读窗格中打开</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="174" />
        <source>You are running your own script ({0}), not a lesson. The text below is lesson “{1}”, for reference; open a lesson to follow it again.</source>
        <translation>你正在运行自己的脚本（{0}），不是课程。下面是课程“{1}”的文字，仅供参考；打开一节课程即可重新跟着学。</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="176" />
        <source>unsaved</source>
        <translation>未保存</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="222" />
        <source>{total} lessons: {stepped} stepped through, {run} run, {opened} opened</source>
        <translation>共 {total} 课：{stepped} 课已逐步看完，{run} 课已运行，{opened} 课已打开</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="228" />
        <source>Not opened yet</source>
        <translation>尚未打开</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="228" />
        <source>Opened</source>
        <translation>已打开</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="228" />
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="228" />
        <source>Stepped through</source>
        <translation>已逐步走完</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="230" />
        <source>your edits are kept (Reset lesson restores the original)</source>
        <translation>保留了你的修改（“重置课程”可恢复原文）</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="259" />
        <source>What to look at</source>
        <translation>要看什么</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="261" />
        <source>Run the lesson first, then click an item: the app shows it.</source>
        <translation>先运行本课，再点击一项：应用会把它指给你看。</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="263" />
        <source>Try this</source>
        <translation>试一试</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="296" />
        <source>Search lessons (English or 中文)…</source>
        <translation>搜索课程（中文或 English）…</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="297" />
        <source>Search titles and texts in both languages</source>
        <translation>在两种语言的标题和正文中搜索</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="298" />
        <source>Open in editor</source>
        <translation>在编辑器中打开</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="299" />
        <source>Load this lesson's script into the editor and run it</source>
        <translation>把本课的脚本载入编辑器并运行</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="300" />
        <source>Reset lesson</source>
        <translation>重置课程</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="301" />
        <source>Throw away your edits to this lesson and load its original script</source>
        <translation>丢弃你对本课的修改，载入原始脚本</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="302" />
        <source>Click a lesson to load and run it. • opened  ▶ run  ✓ stepped through</source>
        <translation>点击课程即可载入并运行。• 已打开  ▶ 已运行  ✓ 已逐步走完</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="303" />
        <source>All lessons</source>
        <translation>全部课程</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/panel.py" line="304" />
        <source>Show or fold away the list of lessons above the text</source>
        <translation>在文字上方显示或收起课程列表</translation>
    </message>
    <message>
        <location filename="../../app/panels/lessons/wiring.py" line="45" />
        <source>Run the lesson first: that item is in its trace.</source>
        <translation>请先运行本课：这一项在它的运行记录里。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../app/window/main_window.py" line="351" />
        <source>Stop the running script</source>
        <translation>停止正在运行的脚本</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="267" />
        <source>Export the graph view</source>
        <translation>导出计算图视图</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="268" />
        <source>PNG image (*.png)</source>
        <translation>PNG 图片 (*.png)</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="350" />
        <source>Run the script</source>
        <translation>运行脚本</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="354" />
        <source>Play / pause the backward pass</source>
        <translation>播放 / 暂停反向传播</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="352" />
        <source>Next / previous step of the backward pass (wherever the focus is)</source>
        <translation>反向传播的下一步 / 上一步（焦点在哪里都可用）</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="353" />
        <source>First / last step (also Ctrl+Shift+F10 / Ctrl+F10)</source>
        <translation>第一步 / 最后一步（也可用 Ctrl+Shift+F10 / Ctrl+F10）</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="355" />
        <source>The same, while the graph has the focus</source>
        <translation>同上，在图获得焦点时</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="356" />
        <source>Presentation mode (Esc leaves)</source>
        <translation>演示模式（按 Esc 退出）</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="357" />
        <source>Find a node by name or op; next match</source>
        <translation>按名称或运算查找节点；下一个匹配</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="358" />
        <source>Zoom in / out / fit the graph</source>
        <translation>放大 / 缩小 / 适应窗口</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="359" />
        <source>Comment or uncomment lines</source>
        <translation>注释或取消注释</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="360" />
        <source>Indent / unindent (4 spaces)</source>
        <translation>缩进 / 取消缩进（4 个空格）</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="361" />
        <source>New / open / save a script</source>
        <translation>新建 / 打开 / 保存脚本</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="362" />
        <source>Open / save a trace</source>
        <translation>打开 / 保存运行记录</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="363" />
        <source>Export the graph</source>
        <translation>导出计算图</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="364" />
        <source>Show the lessons</source>
        <translation>显示课程</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="370" />
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="377" />
        <source>unknown (worker not ready)</source>
        <translation>未知（工作进程尚未就绪）</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="378" />
        <source>About Autograd Visualizer</source>
        <translation>关于 Autograd Visualizer</translation>
    </message>
    <message>
        <location filename="../../app/window/main_window.py" line="379" />
        <source>&lt;h3&gt;Autograd Visualizer {version}&lt;/h3&gt;&lt;p&gt;See the grad_fn graph PyTorch builds and step through the real backward pass.&lt;/p&gt;&lt;p&gt;Scripts run in a separate worker process (torch {torch}).&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Autograd Visualizer {version}&lt;/h3&gt;&lt;p&gt;查看 PyTorch 构建的 grad_fn 计算图，并逐步执行真实的反向传播。&lt;/p&gt;&lt;p&gt;脚本在独立的工作进程中运行（torch {torch}）。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>MemoryPanel</name>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="157" />
        <source>No recorded backward run: nothing is held for backward.</source>
        <translation>没有记录到反向传播：没有为反向传播保留任何内容。</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="162" />
        <source>End of forward</source>
        <translation>前向结束</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="164" />
        <source>After backward step {k} of {n}</source>
        <translation>反向第 {k} 步之后（共 {n} 步）</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="165" />
        <source>{where}: {bytes} held for backward.</source>
        <translation>{where}：为反向传播保留了 {bytes}。</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="175" />
        <source>Activation memory: run a script that calls backward().</source>
        <translation>激活内存：请运行一个调用 backward() 的脚本。</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="180" />
        <source>Activations held for backward, run {run}: peak {peak}.</source>
        <translation>为反向传播保留的激活值，第 {run} 次反向：峰值 {peak}。</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="183" />
        <source>retain_graph: nothing is freed during this backward.</source>
        <translation>retain_graph：这次反向传播不释放任何内容。</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="185" />
        <source>(run without checkpoint)</source>
        <translation>（不使用检查点运行）</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="195" />
        <source>CUDA allocated {a} (max {m})</source>
        <translation>CUDA 已分配 {a}（最大 {m}）</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="216" />
        <source>Not in the bars: the graph's other leaves that require grad (inputs such as x, not parameters of a module or optimizer) hold {leaves}, their gradients {grads}.</source>
        <translation>未计入柱形：计算图中其他需要梯度的叶子张量（如输入 x，而非模块或优化器的参数）占 {leaves}，它们的梯度占 {grads}。</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="233" />
        <source>Run this script again with checkpoint(fn, ...) called as fn(...) and draw both curves ({key})</source>
        <translation>把 checkpoint(fn, ...) 当作 fn(...) 再运行一次这个脚本，并画出两条曲线（{key}）</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="236" />
        <source>This script makes no checkpoint call: there is nothing to compare.</source>
        <translation>这个脚本没有调用 checkpoint：没有可比较的内容。</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="238" />
        <source>Run the script first: the comparison runs the same script again.</source>
        <translation>请先运行脚本：比较会再运行一次同一个脚本。</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="245" />
        <source>Running the script again without checkpoint…</source>
        <translation>正在不使用检查点再次运行脚本…</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="250" />
        <source>Comparison cancelled.</source>
        <translation>比较已取消。</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="261" />
        <source>Without checkpoint the script failed: {type}: {message}</source>
        <translation>不使用检查点时脚本出错：{type}：{message}</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="268" />
        <source>The run without checkpoint timed out after {s} s.</source>
        <translation>不使用检查点的运行在 {s} 秒后超时。</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="269" />
        <source>The worker running the script without checkpoint stopped: {m}</source>
        <translation>运行无检查点脚本的工作进程停止了：{m}</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="271" />
        <source>The run without checkpoint sent an unreadable trace: {m}</source>
        <translation>不使用检查点的运行发回了无法读取的记录：{m}</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="280" />
        <source>The run without checkpoint has no run {run} to compare.</source>
        <translation>不使用检查点的运行中没有可比较的第 {run} 次反向传播。</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="290" />
        <source>Compare without checkpoint</source>
        <translation>与不使用检查点比较</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="291" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="292" />
        <source>Stop the run without checkpoint</source>
        <translation>停止不使用检查点的运行</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="293" />
        <source>Bytes of saved tensors held for backward (each storage once). ▲: a checkpoint segment re-run during backward. Click to move to that step.</source>
        <translation>为反向传播保留的已保存张量的字节数（每块存储只计一次）。▲：反向传播中重新运行的检查点分段。点击可跳到对应步骤。</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="296" />
        <source>held for backward</source>
        <translation>为反向保留</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="297" />
        <source>Training memory: end of forward, after backward, after the optimizer step</source>
        <translation>训练内存：前向结束时、反向之后、优化器更新后</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/panel.py" line="299" />
        <source>Sizes at the last of the three moments recorded</source>
        <translation>所记录的三个时刻中最后一个时刻的大小</translation>
    </message>
</context>
<context>
    <name>Minimap</name>
    <message>
        <location filename="../../app/graph/minimap.py" line="26" />
        <source>Overview of the whole graph: the frame is what the main view shows. Click or drag to move there.</source>
        <translation>整张计算图的概览：方框是主视图显示的区域。点击或拖动可移动到那里。</translation>
    </message>
</context>
<context>
    <name>ModulesPanel</name>
    <message>
        <location filename="../../app/panels/modules/panel.py" line="109" />
        <source>{cls} at {path}: output {shape} {dtype}; {params} parameters ({own} of its own, {trainable} trainable); called {calls} times</source>
        <translation>{cls}（{path}）：输出 {shape} {dtype}；{params} 个参数（自身 {own} 个，可训练 {trainable} 个）；调用了 {calls} 次</translation>
    </message>
    <message>
        <location filename="../../app/panels/modules/panel.py" line="123" />
        <source>Total params: {total} · trainable: {trainable} · modules: {count}</source>
        <translation>参数总数：{total} · 可训练：{trainable} · 模块：{count}</translation>
    </message>
    <message>
        <location filename="../../app/panels/modules/panel.py" line="125" />
        <source>No module was called in this run.</source>
        <translation>这次运行没有调用任何模块。</translation>
    </message>
    <message>
        <location filename="../../app/panels/modules/panel.py" line="140" />
        <source>Calls of {module} and the modules inside it include {n} checkpoint re-run(s) during backward.</source>
        <translation>{module} 及其内部模块的调用次数包含反向传播期间的 {n} 次检查点重算。</translation>
    </message>
    <message>
        <location filename="../../app/panels/modules/panel.py" line="143" />
        <source>torch stopped a re-run early, as soon as it had recomputed every tensor backward needs: a call cut short by that stop (and the calls around it) is not counted, so counts inside {module} differ.</source>
        <translation>torch 在重算出反向传播所需的全部张量后就提前停止了重算：被这次停止中断的调用（以及包住它的调用）不计入，因此 {module} 内部各模块的次数不同。</translation>
    </message>
    <message>
        <location filename="../../app/panels/modules/panel.py" line="161" />
        <source>Layer (type)</source>
        <translation>层（类型）</translation>
    </message>
    <message>
        <location filename="../../app/panels/modules/panel.py" line="161" />
        <source>Output shape</source>
        <translation>输出形状</translation>
    </message>
    <message>
        <location filename="../../app/panels/modules/panel.py" line="161" />
        <source>Param #</source>
        <translation>参数数量</translation>
    </message>
    <message>
        <location filename="../../app/panels/modules/panel.py" line="162" />
        <source>Calls</source>
        <translation>调用次数</translation>
    </message>
    <message>
        <location filename="../../app/panels/modules/panel.py" line="163" />
        <source>Every module the script called: its output shape and parameter count (as torchsummary shows them). Click a row to select its node.</source>
        <translation>脚本调用的每个模块：它的输出形状和参数数量（与 torchsummary 显示的一样）。点击一行即可选中它的节点。</translation>
    </message>
</context>
<context>
    <name>OutputPane</name>
    <message>
        <location filename="../../app/panels/output.py" line="336" />
        <source>… {n} lines skipped (printed faster than they can be shown) …</source>
        <translation>… 跳过了 {n} 行（打印速度超过了显示速度）…</translation>
    </message>
</context>
<context>
    <name>PackagesDialog</name>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="35" />
        <source>Manage Packages</source>
        <translation>管理包</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="41" />
        <source>Packages of the Python that runs your scripts: {path}</source>
        <translation>运行脚本的 Python 中的包：{path}</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="45" />
        <source>Filter installed packages, or type a name to install</source>
        <translation>筛选已安装的包，或输入要安装的包名</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="55" />
        <source>Install…</source>
        <translation>安装…</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="56" />
        <source>Install the package named in the field above with pip</source>
        <translation>用 pip 安装上面输入框中的包</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="57" />
        <source>Uninstall…</source>
        <translation>卸载…</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="58" />
        <source>Uninstall the selected package with pip</source>
        <translation>用 pip 卸载选中的包</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="59" />
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="60" />
        <source>List the installed packages again</source>
        <translation>重新列出已安装的包</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="85" />
        <source>Package</source>
        <translation>包</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="85" />
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="91" />
        <source>Reading the installed packages…</source>
        <translation>正在读取已安装的包…</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="105" />
        <source>Type the name of the package to install in the field above.</source>
        <translation>请在上面的输入框中输入要安装的包名。</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="119" />
        <source>Scripts cannot run in this Python without {names}.</source>
        <translation>没有 {names}，脚本无法在这个 Python 中运行。</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="136" />
        <source>The packages could not be listed (exit code {code}).</source>
        <translation>无法列出包（退出码 {code}）。</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="144" />
        <source>This Python could not be started.</source>
        <translation>无法启动这个 Python。</translation>
    </message>
    <message>
        <location filename="../../app/environments/packages_dialog.py" line="154" />
        <source>{n} of {total} packages shown.</source>
        <translation>显示 {n} / {total} 个包。</translation>
    </message>
</context>
<context>
    <name>Panels</name>
    <message>
        <location filename="../../app/window/panel_registry.py" line="90" />
        <source>Lessons</source>
        <translation>课程</translation>
    </message>
    <message>
        <location filename="../../app/window/panel_registry.py" line="92" />
        <source>Code</source>
        <translation>代码</translation>
    </message>
    <message>
        <location filename="../../app/window/panel_registry.py" line="94" />
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location filename="../../app/window/panel_registry.py" line="96" />
        <source>Inspector</source>
        <translation>检查器</translation>
    </message>
    <message>
        <location filename="../../app/window/panel_registry.py" line="98" />
        <source>Backward steps</source>
        <translation>反向传播步骤</translation>
    </message>
    <message>
        <location filename="../../app/window/panel_registry.py" line="100" />
        <source>GradScaler</source>
        <translation>GradScaler 梯度缩放</translation>
    </message>
    <message>
        <location filename="../../app/window/panel_registry.py" line="104" />
        <source>Checkpoints</source>
        <translation>检查点</translation>
    </message>
    <message>
        <location filename="../../app/window/panel_registry.py" line="108" />
        <source>Modules</source>
        <translation>模块</translation>
    </message>
    <message>
        <location filename="../../app/window/panel_registry.py" line="111" />
        <source>Memory</source>
        <translation>内存</translation>
    </message>
</context>
<context>
    <name>PreferencesDialog</name>
    <message>
        <location filename="../../app/environments/preferences.py" line="39" />
        <source>Preferences</source>
        <translation>首选项</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="46" />
        <source>Python that runs your scripts</source>
        <translation>运行脚本的 Python</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="47" />
        <source>This app's own Python</source>
        <translation>本应用自带的 Python</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="52" />
        <source>Another Python interpreter (a venv or conda environment that has torch):</source>
        <translation>其他 Python 解释器（装有 torch 的 venv 或 conda 环境）：</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="63" />
        <source>Type the path of an interpreter, or pick one of the environments found on this computer</source>
        <translation>输入解释器的路径，或从这台电脑上找到的环境中选择一个</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="67" />
        <source>for example ~/miniconda3/envs/torch/bin/python</source>
        <translation>例如 ~/miniconda3/envs/torch/bin/python</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="68" />
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="69" />
        <source>Choose the interpreter's file</source>
        <translation>选择解释器文件</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="70" />
        <source>Check</source>
        <translation>检查</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="71" />
        <source>Start this interpreter once and see whether scripts can run there (torch, CUDA, the worker's packages)</source>
        <translation>启动一次这个解释器，检查脚本能否在其中运行（torch、CUDA、工作进程所需的包）</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="82" />
        <source>Install Missing Packages…</source>
        <translation>安装缺少的包…</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="83" />
        <source>Run pip in this interpreter to install what it lacks</source>
        <translation>在这个解释器中运行 pip，安装它缺少的包</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="85" />
        <source>Scripts then run with that environment's torch and packages; the app itself is unchanged.</source>
        <translation>之后脚本将使用该环境中的 torch 和包运行；应用本身不变。</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="141" />
        <source>Choose a Python interpreter</source>
        <translation>选择 Python 解释器</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="142" />
        <source>Python interpreter (python* python*.exe);;All files (*)</source>
        <translation>Python 解释器 (python* python*.exe);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="151" />
        <source>Type or browse the path of a Python interpreter first.</source>
        <translation>请先输入或浏览选择 Python 解释器的路径。</translation>
    </message>
    <message>
        <location filename="../../app/environments/preferences.py" line="157" />
        <source>Checking {path}… (importing torch can take a few seconds)</source>
        <translation>正在检查 {path}…（导入 torch 可能需要几秒钟）</translation>
    </message>
</context>
<context>
    <name>RunController</name>
    <message>
        <location filename="../../app/window/run_controller.py" line="147" />
        <source>Previous run cancelled.</source>
        <translation>上一次运行已取消。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="100" />
        <source>untitled.py</source>
        <translation>未命名.py</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="99" />
        <source>▶ Running {name} on {device}…</source>
        <translation>▶ 正在 {device} 上运行 {name}…</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="109" />
        <source>Nothing is running.</source>
        <translation>没有正在运行的脚本。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="112" />
        <source>Run timeout</source>
        <translation>运行超时</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="113" />
        <source>Stop a script after this many seconds:</source>
        <translation>脚本运行超过多少秒后停止：</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="131" />
        <source>The script was running this line when the run timeout stopped it.</source>
        <translation>运行超时使脚本停止时，它正在执行这一行。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="133" />
        <source>It was running line {n} when it was stopped.</source>
        <translation>停止时脚本正在执行第 {n} 行。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="163" />
        <source>Working folder: {folder}</source>
        <translation>工作文件夹：{folder}</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="167" />
        <source>Working folder: {folder} (your home folder: the script is not saved; save it to run it in its own folder)</source>
        <translation>工作文件夹：{folder}（你的主文件夹：脚本尚未保存；保存后它会在自己所在的文件夹中运行）</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="187" />
        <source>Saved trace {path}: recorded from {script} with torch {torch} on {device}. No worker holds its tensors: only the values saved in it can be shown.</source>
        <translation>已保存的运行记录 {path}：记录自 {script}，torch {torch}，设备 {device}。没有工作进程持有它的张量：只能显示记录中保存的数值。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="203" />
        <location filename="../../app/window/run_controller.py" line="207" />
        <source>line {n}</source>
        <translation>第 {n} 行</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="205" />
        <location filename="../../app/window/run_controller.py" line="207" />
        <source>What this means:</source>
        <translation>这是什么意思：</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="216" />
        <source>Finished in {s} s. No autograd graph was built: no tensor in the script requires grad (try requires_grad=True).</source>
        <translation>用时 {s} 秒完成。没有构建自动求导计算图：脚本中没有需要梯度的张量（试试 requires_grad=True）。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="220" />
        <source>Finished in {s} s: {g} graph(s), {n} nodes, {r} backward run(s). Step through them below the graph.</source>
        <translation>用时 {s} 秒完成：{g} 张计算图，{n} 个节点，{r} 次反向传播。在计算图下方逐步查看。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="275" />
        <source>The script printed {total} characters; only the first {cap} are kept.</source>
        <translation>脚本共输出了 {total} 个字符，只保留了前 {cap} 个。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="278" />
        <source>{count} module path(s) in this trace were deeper than {parts} parts or longer than {chars} characters; they are shown cut to that.</source>
        <translation>此 trace 中有 {count} 个模块路径超过 {parts} 层或长于 {chars} 个字符；显示时已截断到这个长度。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="283" />
        <location filename="../../app/window/run_controller.py" line="308" />
        <location filename="../../app/window/run_controller.py" line="332" />
        <source> (line {0})</source>
        <translation>（第 {0} 行）</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="284" />
        <source>Warning{where}: Reading .grad of a non-leaf tensor: autograd only stores gradients in the .grad of leaf tensors (the ones you created with requires_grad=True), so this is None. To keep the gradient of an intermediate tensor, call t.retain_grad() before backward(), or use torch.autograd.grad(output, t).</source>
        <translation>警告{where}：读取了非叶子张量的 .grad。autograd 只把梯度存进叶子张量（你用 requires_grad=True 创建的张量）的 .grad，所以这里是 None。要保留中间张量的梯度，请在 backward() 之前调用 t.retain_grad()，或者使用 torch.autograd.grad(output, t)。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="291" />
        <source>torch says "the use_reentrant parameter should be passed explicitly": checkpoint was called without use_reentrant. It then uses the reentrant variant (today's default; torch plans to make leaving it out an error). Pass use_reentrant=False explicitly: the recommended variant, which accepts keyword arguments and outputs of any structure and works when no input requires grad; pass use_reentrant=True only to keep the old behaviour on purpose.</source>
        <translation>torch 提示 "the use_reentrant parameter should be passed explicitly"：调用 checkpoint 时没有传入 use_reentrant。此时它使用重入式变体（这是目前的默认行为；torch 计划把不传这个参数变成错误）。请显式传入 use_reentrant=False：这是推荐的变体，它接受关键字参数、任意结构的输出，并且在没有任何输入需要梯度时也能正常工作；只有在有意保留旧行为时才传入 use_reentrant=True。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="299" />
        <source>torch says "None of the inputs have requires_grad=True. Gradients will be None": a reentrant checkpoint (use_reentrant=True, or not given) was called with no input that requires grad. It runs the function under no_grad and its result only gets a gradient through its tensor inputs, so nothing inside the segment - not even the parameters of a checkpointed module - gets a gradient from it: their .grad stays None. Make an input require grad (x.requires_grad_() on the first input), or use use_reentrant=False, which records the segment normally.</source>
        <translation>torch 提示 "None of the inputs have requires_grad=True. Gradients will be None"：调用重入式 checkpoint（use_reentrant=True，或未指定）时，没有任何输入需要梯度。它在 no_grad 下运行函数，其结果只能通过张量输入获得梯度，因此该段内的任何东西——甚至被 checkpoint 的模块的参数——都不会从它得到梯度：它们的 .grad 仍然是 None。请让某个输入需要梯度（对第一个输入调用 x.requires_grad_()），或者使用 use_reentrant=False，它会正常记录这一段。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="310" />
        <source>Checkpoint{where}: the reentrant checkpoint returned a {type} whose tensors do not require grad, although an input did: whatever gradient they should carry is lost, silently. Reentrant checkpoint (use_reentrant=True, or not given) runs the function under no_grad and connects to the graph only the tensors it returns directly (a tensor, or the elements of a tuple); tensors inside a dict, a list or another object come back detached, so backward never reaches the segment's inputs and parameters. Return a tensor or a tuple of tensors, or pass use_reentrant=False, which keeps the gradient in any output structure.</source>
        <translation>Checkpoint{where}：重入式 checkpoint 返回了一个 {type}，其中的张量都不需要梯度，而某个输入是需要梯度的：它们本应携带的梯度都被悄无声息地丢掉了。重入式 checkpoint（use_reentrant=True，或未指定）在 no_grad 下运行函数，只把它直接返回的张量（一个张量，或元组中的各个元素）接入计算图；放在 dict、list 或其他对象里的张量返回时是分离（detached）的，所以反向传播永远到达不了这一段的输入和参数。请返回一个张量或由张量组成的元组，或者传入 use_reentrant=False，它在任何输出结构中都会保留梯度。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="319" />
        <source>{n} node(s) inside non-reentrant checkpoint segments: their saved tensors were not read (reading them re-runs the checkpointed forward).</source>
        <translation>有 {n} 个节点位于非重入式 checkpoint 段中：没有读取它们保存的张量（读取会重新运行被 checkpoint 的前向计算）。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="322" />
        <source>{calls} backward/grad calls; only the first {recorded} were recorded in full.</source>
        <translation>共有 {calls} 次 backward/grad 调用；只完整记录了前 {recorded} 次。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="325" />
        <source>{n} backward call(s) waited too long for another thread's call to be recorded and ran unrecorded.</source>
        <translation>有 {n} 次 backward 调用等待另一线程的调用记录完毕的时间过长，因此未被记录就直接运行了。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="333" />
        <source>Warning{where}: </source>
        <translation>警告{where}：</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="336" />
        <source>The trace could not be read.</source>
        <translation>无法读取运行记录。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="342" />
        <source>The worker process could not be started.</source>
        <translation>无法启动工作进程。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="343" />
        <location filename="../../app/window/run_controller.py" line="350" />
        <source>It {how}.</source>
        <translation>原因：{how}。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="344" />
        <source>Check that torch is installed in this Python (run `autogradviz doctor`), then press Run to try again.</source>
        <translation>请检查当前 Python 中是否安装了 torch（运行 `autogradviz doctor`），然后按“运行”重试。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="349" />
        <source>The worker process stopped unexpectedly.</source>
        <translation>工作进程意外停止。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="351" />
        <source>Your code is safe in the editor; a fresh worker is starting.</source>
        <translation>你的代码仍在编辑器中；正在启动新的工作进程。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="357" />
        <source>Stopped: the script ran longer than the run timeout ({s} s).</source>
        <translation>已停止：脚本运行超过了运行超时（{s} 秒）。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="359" />
        <source>Change it in Run ▸ Run Timeout…, or look for an endless loop.</source>
        <translation>可在“运行 ▸ 运行超时…”中修改，或检查是否有死循环。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="365" />
        <source>Stopped.</source>
        <translation>已停止。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="365" />
        <source>The script was ended by Stop.</source>
        <translation>脚本被“停止”结束。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="376" />
        <source>The graph could not be laid out.</source>
        <translation>无法布局计算图。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="387" />
        <source>Run on the GPU: {names}</source>
        <translation>在 GPU 上运行：{names}</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="389" />
        <source>CUDA is not available: the worker's torch {v} reports no usable GPU (CPU-only build or no driver).</source>
        <translation>CUDA 不可用：工作进程中的 torch {v} 报告没有可用的 GPU（仅 CPU 版本或没有驱动）。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="392" />
        <source>Waiting for the worker to report whether a GPU is available.</source>
        <translation>等待工作进程报告是否有可用的 GPU。</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="395" />
        <source>Run on the CPU</source>
        <translation>在 CPU 上运行</translation>
    </message>
    <message>
        <location filename="../../app/window/run_controller.py" line="396" />
        <source>Device the script runs on (its `device` variable)</source>
        <translation>脚本运行的设备（即脚本中的 `device` 变量）</translation>
    </message>
</context>
<context>
    <name>RunningOverlay</name>
    <message>
        <location filename="../../app/graph/running.py" line="101" />
        <source>Running {0}…</source>
        <translation>正在运行 {0}…</translation>
    </message>
    <message>
        <location filename="../../app/graph/running.py" line="102" />
        <source>{0:.1f} s. The graph behind this is from the previous run; the new one appears when the run ends.</source>
        <translation>{0:.1f} 秒。后面的图来自上一次运行；这次运行结束后会显示新图。</translation>
    </message>
    <message>
        <location filename="../../app/graph/running.py" line="111" />
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../app/graph/running.py" line="112" />
        <source>Stop the running script (Ctrl+.)</source>
        <translation>停止正在运行的脚本（Ctrl+.）</translation>
    </message>
</context>
<context>
    <name>StepperPanel</name>
    <message>
        <location filename="../../app/panels/stepper.py" line="291" />
        <source>Backward run:</source>
        <translation>反向传播：</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="293" />
        <source>Each call of backward() or torch.autograd.grad() the script made, and graphs of tensors left at the end that no backward ran on.</source>
        <translation>脚本每次调用 backward() 或 torch.autograd.grad()，以及脚本结束时留下、没有执行过反向传播的张量的计算图。</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="295" />
        <source>First: before backward starts (Alt+Home, or Home in the graph)</source>
        <translation>第一步：反向传播开始之前（Alt+Home，或在图中按 Home）</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="296" />
        <source>Step back (Shift+F10, or ← in the graph)</source>
        <translation>后退一步（Shift+F10，或在图中按 ←）</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="297" />
        <source>Step forward: run the next node (F10, or → in the graph)</source>
        <translation>前进一步：执行下一个节点（F10，或在图中按 →）</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="298" />
        <source>Last: after the whole backward pass (Alt+End, or End in the graph)</source>
        <translation>最后一步：整个反向传播之后（Alt+End，或在图中按 End）</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="299" />
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="300" />
        <location filename="../../app/panels/stepper.py" line="593" />
        <source>Playback speed: {0} steps per second</source>
        <translation>播放速度：每秒 {0} 步</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="301" />
        <source>Hooks and retain_grad fills, in the order they happened. Click one to jump to its step.</source>
        <translation>钩子和 retain_grad 的填充，按发生顺序排列。点击可跳到对应步骤。</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="303" />
        <source>One tick per step. Click or drag to move through the backward pass.</source>
        <translation>每一步一个刻度。点击或拖动可在反向传播中移动。</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="348" />
        <source>#{0}: {1}</source>
        <translation>#{0}：{1}</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="350" />
        <source> at line {0}</source>
        <translation>（第 {0} 行）</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="351" />
        <source> — {0} steps</source>
        <translation> — {0} 步</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="359" />
        <source>graph of {0} (forward only, no backward)</source>
        <translation>{0} 的计算图（只有前向，没有反向）</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="391" />
        <source>The script called backward {0} times; only the first {1} calls were recorded.</source>
        <translation>脚本调用了 {0} 次 backward；只记录了前 {1} 次。</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="413" />
        <source>step {0}: retain_grad filled {1}.grad = {2}</source>
        <translation>第 {0} 步：retain_grad 填充了 {1}.grad = {2}</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="416" />
        <source>step {0}: {1} on {2} saw {3}</source>
        <translation>第 {0} 步：{2} 上的 {1} 收到 {3}</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="419" />
        <source> → returned {0}</source>
        <translation> → 返回 {0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="422" />
        <source>Click to jump to step {0}</source>
        <translation>点击跳到第 {0} 步</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="425" />
        <source>No hooks or retain_grad in this backward run.</source>
        <translation>这次反向传播中没有钩子或 retain_grad。</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="433" />
        <source>Run a script to see its autograd graph and step through backward.</source>
        <translation>运行脚本，查看它的自动求导计算图并逐步执行反向传播。</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="435" />
        <source>The script stopped with an error before any backward pass, so there is nothing to step through.</source>
        <translation>脚本在任何反向传播之前就因错误停止了，因此没有可以逐步查看的内容。</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="438" />
        <source>Nothing to step through: this script never called backward() or torch.autograd.grad(). The graph shows the forward pass only; add e.g. loss.backward() to record one.</source>
        <translation>没有可以逐步查看的内容：这个脚本从未调用 backward() 或 torch.autograd.grad()。计算图只显示前向传播；加上例如 loss.backward() 即可记录一次反向传播。</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="442" />
        <source>Nothing to step through: the script built no autograd graph.</source>
        <translation>没有可以逐步查看的内容：脚本没有构建自动求导计算图。</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="443" />
        <source>No backward run was recorded for this graph; pick another run above.</source>
        <translation>这张计算图没有记录到反向传播；请在上方选择另一次运行。</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="452" />
        <source>: received {0}</source>
        <translation>：收到 {0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="459" />
        <source>{0} → {1}</source>
        <translation>{0} → {1}</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="462" />
        <source> and sent </source>
        <translation>，并发出 </translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="464" />
        <source> and accumulated it into .grad</source>
        <translation>，并把它累加到 .grad</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="468" />
        <source> (GradScaler: {0} × the real gradient {1})</source>
        <translation>（GradScaler：是真实梯度 {1} 的 {0} 倍）</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="491" />
        <source>&lt;b&gt;Step 0 of {0}&lt;/b&gt;: backward has not started. Press {1} to run the first node.</source>
        <translation>&lt;b&gt;第 0 步，共 {0} 步&lt;/b&gt;：反向传播尚未开始。按 {1} 执行第一个节点。</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="508" />
        <source>No room on the graph for: {0}</source>
        <translation>图上放不下：{0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="602" />
        <source>Pause (F9, or Space in the graph)</source>
        <translation>暂停（F9，或在图中按空格）</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="605" />
        <source>Play the backward pass step by step (F9, or Space in the graph)</source>
        <translation>逐步播放反向传播（F9，或在图中按空格）</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="498" />
        <source>&lt;b&gt;Step {0} of {1}&lt;/b&gt;: {2} ran</source>
        <translation>&lt;b&gt;第 {0} 步，共 {1} 步&lt;/b&gt;：执行了 {2}</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="502" />
        <source>Made by line {0}: {1}</source>
        <translation>由第 {0} 行生成：{1}</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="513" />
        <source> — torch.autograd.grad is complete; it returned {0} (nothing was stored in .grad).</source>
        <translation> — torch.autograd.grad 已完成；它返回了 {0}（没有存入 .grad）。</translation>
    </message>
    <message>
        <location filename="../../app/panels/stepper.py" line="517" />
        <source> — backward is complete.</source>
        <translation> — 反向传播完成。</translation>
    </message>
</context>
<context>
    <name>Timeline</name>
    <message>
        <location filename="../../app/panels/stepper.py" line="153" />
        <source>Step {0} of {1}. Click or drag to move through the backward pass; purple marks: a hook fired; blue dots: retain_grad filled .grad; amber triangles: a checkpoint re-ran its forward.</source>
        <translation>第 {0} 步，共 {1} 步。点击或拖动可在反向传播中移动；紫色标记：钩子被触发；蓝色圆点：retain_grad 填充了 .grad；琥珀色三角：检查点在这里重新运行了前向。</translation>
    </message>
</context>
<context>
    <name>TraceFileController</name>
    <message>
        <location filename="../../app/window/trace_file_controller.py" line="90" />
        <source>There is no trace to save yet: run a script first.</source>
        <translation>还没有可以保存的运行记录：请先运行脚本。</translation>
    </message>
    <message>
        <location filename="../../app/window/trace_file_controller.py" line="94" />
        <source>Save the trace</source>
        <translation>保存运行记录</translation>
    </message>
    <message>
        <location filename="../../app/window/trace_file_controller.py" line="101" />
        <source>Open a saved trace</source>
        <translation>打开已保存的运行记录</translation>
    </message>
    <message>
        <location filename="../../app/window/trace_file_controller.py" line="112" />
        <source>Saving the trace to {name}…</source>
        <translation>正在把运行记录保存到 {name}…</translation>
    </message>
    <message>
        <location filename="../../app/window/trace_file_controller.py" line="119" />
        <source>Opening the trace {name}…</source>
        <translation>正在打开运行记录 {name}…</translation>
    </message>
    <message>
        <location filename="../../app/window/trace_file_controller.py" line="122" />
        <source>Autograd traces (*.json);;All files (*)</source>
        <translation>自动求导运行记录 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../app/window/trace_file_controller.py" line="160" />
        <source>Saved the trace to {path}</source>
        <translation>运行记录已保存到 {path}</translation>
    </message>
    <message>
        <location filename="../../app/window/trace_file_controller.py" line="170" />
        <source>{path} was written by a newer Autograd Visualizer (trace format version {found}; this one reads up to version {known}). Update the app to open it.</source>
        <translation>{path} 由更新版本的 Autograd Visualizer 写入（运行记录格式版本 {found}；本版本最多只能读取版本 {known}）。请更新应用后再打开。</translation>
    </message>
    <message>
        <location filename="../../app/window/trace_file_controller.py" line="174" />
        <source>{path} is not an Autograd Visualizer trace ({detail}).</source>
        <translation>{path} 不是 Autograd Visualizer 的运行记录（{detail}）。</translation>
    </message>
    <message>
        <location filename="../../app/window/trace_file_controller.py" line="177" />
        <source>Could not open {path}:
{error}</source>
        <translation>无法打开 {path}：
{error}</translation>
    </message>
    <message>
        <location filename="../../app/window/trace_file_controller.py" line="180" />
        <source>Could not save {path}:
{error}</source>
        <translation>无法保存 {path}：
{error}</translation>
    </message>
</context>
<context>
    <name>TraceSession</name>
    <message>
        <location filename="../../app/session.py" line="185" />
        <source>checkpoint {0} · recomputed</source>
        <translation>检查点 {0} · 重算</translation>
    </message>
    <message>
        <location filename="../../app/session.py" line="371" />
        <source>Full values are not available for a saved trace: only the values it holds (up to 64 elements per tensor) were saved. Run the script to fetch every value.</source>
        <translation>已保存的运行记录无法提供完整数值：只保存了记录中包含的数值（每个张量最多 64 个元素）。运行脚本即可获取全部数值。</translation>
    </message>
    <message>
        <location filename="../../app/session.py" line="401" />
        <source>The values could not be fetched.</source>
        <translation>无法获取数值。</translation>
    </message>
</context>
<context>
    <name>WindowChrome</name>
    <message>
        <location filename="../../app/window/chrome.py" line="225" />
        <source>&amp;New</source>
        <translation>新建(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="225" />
        <source>Start a new, empty script</source>
        <translation>新建一个空脚本</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="226" />
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="226" />
        <source>Open a Python script (it runs only when you press Run)</source>
        <translation>打开 Python 脚本（只有按“运行”时才会执行）</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="227" />
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="227" />
        <source>Save the script</source>
        <translation>保存脚本</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="228" />
        <source>Save &amp;As…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="228" />
        <source>Save the script under a new name</source>
        <translation>用新名字保存脚本</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="229" />
        <source>Open &amp;Trace…</source>
        <translation>打开运行记录(&amp;T)…</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="229" />
        <source>Open a saved trace (.json) and look at it again, without running anything</source>
        <translation>打开已保存的运行记录（.json）重新查看，不运行任何代码</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="231" />
        <source>Save T&amp;race…</source>
        <translation>保存运行记录(&amp;R)…</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="231" />
        <source>Save what the last run recorded as a trace file (.json) to open later or elsewhere</source>
        <translation>把上次运行记录下的内容保存为运行记录文件（.json），以后或在别的电脑上打开</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="233" />
        <source>&amp;Export…</source>
        <translation>导出(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="233" />
        <source>Export the graph or the backward steps as images</source>
        <translation>把计算图或反向传播步骤导出为图片</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="234" />
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="234" />
        <source>Close the application</source>
        <translation>关闭应用程序</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="235" />
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="235" />
        <source>Undo the last edit</source>
        <translation>撤销上一次编辑</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="236" />
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="236" />
        <source>Redo the last undone edit</source>
        <translation>重做上一次撤销的编辑</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="237" />
        <source>Toggle &amp;Comment</source>
        <translation>切换注释(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="237" />
        <source>Comment out the selected lines, or uncomment them</source>
        <translation>注释掉选中的行，或取消注释</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="238" />
        <location filename="../../app/window/chrome.py" line="283" />
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="238" />
        <source>Run the script in the worker and show its autograd graph</source>
        <translation>在工作进程中运行脚本并显示它的自动求导计算图</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="239" />
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="239" />
        <source>Stop the running script</source>
        <translation>停止正在运行的脚本</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="240" />
        <source>Run &amp;Timeout…</source>
        <translation>运行超时(&amp;T)…</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="240" />
        <source>Stop scripts that run longer than this</source>
        <translation>脚本运行超过这个时间就停止</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="241" />
        <source>Zoom &amp;In</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="241" />
        <source>Zoom into the graph</source>
        <translation>放大计算图</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="242" />
        <source>Zoom &amp;Out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="242" />
        <source>Zoom out of the graph</source>
        <translation>缩小计算图</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="243" />
        <source>&amp;Fit Graph</source>
        <translation>适应窗口(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="243" />
        <source>Fit the whole graph into the view</source>
        <translation>让整张计算图适应视图</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="244" />
        <source>&amp;Find in Graph…</source>
        <translation>在图中查找(&amp;F)…</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="244" />
        <source>Search the graph by variable name or op</source>
        <translation>按变量名或运算搜索计算图</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="245" />
        <source>Show &amp;Saved Tensors</source>
        <translation>显示保存的张量(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="246" />
        <source>Show what each node saved for backward, as extra boxes</source>
        <translation>以额外的方框显示每个节点为反向传播保存的内容</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="247" />
        <source>F&amp;old Repeated Layers</source>
        <translation>折叠重复层(&amp;O)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="248" />
        <source>Draw identical layers (a TransformerEncoder's, ResNet blocks) once, marked ×N, in big graphs</source>
        <translation>在大图中，相同的层（TransformerEncoder 的各层、ResNet 块）只画一次，标为 ×N</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="250" />
        <source>&amp;Left to Right</source>
        <translation>从左到右(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="250" />
        <source>Lay the graph out from left to right (reads better for long chains)</source>
        <translation>从左到右排布计算图（长链更易阅读）</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="252" />
        <source>&amp;Reset Layout</source>
        <translation>重置布局(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="252" />
        <source>Put every panel back where it started, with the graph beside the code</source>
        <translation>把每个面板放回初始位置，图在代码旁边</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="254" />
        <source>&amp;Presentation</source>
        <translation>演示模式(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="254" />
        <source>For a projector: only the graph, the code and the step caption, drawn larger (Esc leaves)</source>
        <translation>用于投影：只显示图、代码和步骤说明，并放大显示（按 Esc 退出）</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="256" />
        <source>&amp;Next Step</source>
        <translation>下一步(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="256" />
        <source>Run the next node of the backward pass</source>
        <translation>执行反向传播的下一个节点</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="257" />
        <source>&amp;Previous Step</source>
        <translation>上一步(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="257" />
        <source>Go back one step of the backward pass</source>
        <translation>反向传播后退一步</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="258" />
        <source>&amp;First Step</source>
        <translation>第一步(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="258" />
        <source>Before backward starts</source>
        <translation>反向传播开始之前</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="259" />
        <source>&amp;Last Step</source>
        <translation>最后一步(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="259" />
        <source>After the whole backward pass</source>
        <translation>整个反向传播之后</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="260" />
        <source>&amp;Play / Pause</source>
        <translation>播放 / 暂停(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="260" />
        <source>Play the backward pass step by step, or pause it</source>
        <translation>逐步播放反向传播，或暂停</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="261" />
        <source>&amp;About Autograd Visualizer</source>
        <translation>关于 Autograd Visualizer(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="261" />
        <source>Version and credits</source>
        <translation>版本与致谢</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="262" />
        <source>&amp;Lessons</source>
        <translation>课程(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="262" />
        <source>Show the starter lessons</source>
        <translation>显示入门课程</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="263" />
        <source>&amp;Keyboard Shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="263" />
        <source>Every key the app understands</source>
        <translation>应用支持的所有按键</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="264" />
        <source>Follow &amp;System</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="264" />
        <source>Use the desktop's light or dark setting</source>
        <translation>使用桌面系统的浅色或深色设置</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="265" />
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="265" />
        <source>Light theme</source>
        <translation>浅色主题</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="266" />
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="266" />
        <source>Dark theme</source>
        <translation>深色主题</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="279" />
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="280" />
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="281" />
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="282" />
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="282" />
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="283" />
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="284" />
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="284" />
        <source>&amp;Panels</source>
        <translation>面板(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="285" />
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="285" />
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="286" />
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="288" />
        <source>Toolbar</source>
        <translation>工具栏</translation>
    </message>
    <message>
        <location filename="../../app/window/chrome.py" line="289" />
        <source>Device:</source>
        <translation>设备：</translation>
    </message>
</context>
<context>
    <name>WindowStatus</name>
    <message>
        <location filename="../../app/window/status_bar.py" line="109" />
        <source>Summarising {nodes} nodes… ({done} done)</source>
        <translation>正在汇总 {nodes} 个节点…（已完成 {done} 个）</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="111" />
        <source>Summarising {nodes} nodes…</source>
        <translation>正在汇总 {nodes} 个节点…</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="114" />
        <source>Summarising {n} tensors… ({done} done)</source>
        <translation>正在汇总 {n} 个张量…（已完成 {done} 个）</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="115" />
        <source>Summarising {n} tensors…</source>
        <translation>正在汇总 {n} 个张量…</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="117" />
        <source>Capturing a graph of {nodes} nodes…</source>
        <translation>正在捕获一个有 {nodes} 个节点的计算图…</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="119" />
        <source>Building the trace of {nodes} nodes…</source>
        <translation>正在构建 {nodes} 个节点的记录…</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="121" />
        <source>Sending the trace ({nodes} nodes)…</source>
        <translation>正在发送记录（{nodes} 个节点）…</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="122" />
        <source>Working…</source>
        <translation>正在处理…</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="129" />
        <source>Starting the worker (importing torch), then running…</source>
        <translation>正在启动工作进程（导入 torch），随后运行…</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="131" />
        <source>Waiting for your input in the Output pane (the run timeout is paused)</source>
        <translation>正在等待你在“输出”面板中输入（运行超时已暂停）</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="133" />
        <source>Running {s:.1f} s</source>
        <translation>正在运行 {s:.1f} 秒</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="135" />
        <source>Worker starting (importing torch)…</source>
        <translation>工作进程启动中（正在导入 torch）…</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="138" />
        <source>Worker ready · torch {v}</source>
        <translation>工作进程就绪 · torch {v}</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="138" />
        <source>Worker ready</source>
        <translation>工作进程就绪</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="140" />
        <source>Worker crashed · restarting</source>
        <translation>工作进程崩溃 · 正在重启</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="142" />
        <source>Worker failed to start · press Run to retry</source>
        <translation>工作进程启动失败 · 按“运行”重试</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="144" />
        <source>Worker stopped</source>
        <translation>工作进程已停止</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="152" />
        <source>Scripts run with {python}</source>
        <translation>脚本使用 {python} 运行</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="163" />
        <source>No graph</source>
        <translation>无计算图</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="169" />
        <source>{n} nodes · {e} edges</source>
        <translation>{n} 个节点 · {e} 条边</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="173" />
        <source>Graph {i} of {k}: </source>
        <translation>第 {i} 张图，共 {k} 张：</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="179" />
        <location filename="../../app/window/status_bar.py" line="207" />
        <source>Laying out the graph…</source>
        <translation>正在布局计算图…</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="187" />
        <location filename="../../app/window/status_bar.py" line="217" />
        <source>How the graph was laid out</source>
        <translation>计算图的布局方式</translation>
    </message>
    <message>
        <location filename="../../app/window/status_bar.py" line="200" />
        <source>Layout failed</source>
        <translation>布局失败</translation>
    </message>
</context>
<context><name>ActivationChart</name><message>
        <location filename="../../app/panels/memory/activation_chart.py" line="40" />
        <source>start</source>
        <translation>开始</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/activation_chart.py" line="40" />
        <source>forward ops</source>
        <translation>前向运算</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/activation_chart.py" line="40" />
        <source>backward() called</source>
        <translation>调用 backward()</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/activation_chart.py" line="41" />
        <source>backward steps</source>
        <translation>反向步骤</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/activation_chart.py" line="41" />
        <source>end</source>
        <translation>结束</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/activation_chart.py" line="113" />
        <source>with checkpoint</source>
        <translation>使用检查点</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/activation_chart.py" line="117" />
        <source>without checkpoint</source>
        <translation>不使用检查点</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/activation_chart.py" line="121" />
        <source>re-run peak</source>
        <translation>重算峰值</translation>
    </message>
    </context><context><name>CheckpointMasks</name><message>
        <location filename="../../app/panels/checkpoint/masks_view.py" line="57" />
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/masks_view.py" line="58" />
        <source>re-run</source>
        <translation>重算</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/masks_view.py" line="59" />
        <source>different mask</source>
        <translation>掩码不同</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/masks_view.py" line="66" />
        <source>Dropout mask {0} {1}: kept {2} of {3}</source>
        <translation>Dropout 掩码 {0}（{1}）：保留 {2} / {3}</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/masks_view.py" line="70" />
        <source>(not drawn)</source>
        <translation>（未抽取）</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/masks_view.py" line="72" />
        <source>kept {0} of {1}</source>
        <translation>保留 {0} / {1}</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/masks_view.py" line="75" />
        <source>same mask</source>
        <translation>掩码相同</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/masks_view.py" line="84" />
        <source>The re-run drew a different Dropout mask (preserve_rng_state=False): the recomputed activations are not the forward's, so the gradient no longer matches the forward that produced the loss.</source>
        <translation>重算时抽到了不同的 Dropout 掩码（preserve_rng_state=False）：重算出的激活值不是前向时的那些，所以梯度不再对应产生这个损失的那次前向。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/masks_view.py" line="88" />
        <source>The re-run drew the same mask: torch restored the forward's RNG state (preserve_rng_state=True), so the gradient matches the forward.</source>
        <translation>重算时抽到了相同的掩码：torch 恢复了前向时的随机数状态（preserve_rng_state=True），所以梯度与前向一致。</translation>
    </message>
    </context><context><name>CheckpointRegions</name><message>
        <location filename="../../app/graph/checkpoint_regions.py" line="55" />
        <source>reentrant</source>
        <translation>可重入</translation>
    </message>
    <message>
        <location filename="../../app/graph/checkpoint_regions.py" line="55" />
        <source>non-reentrant</source>
        <translation>非可重入</translation>
    </message>
    <message>
        <location filename="../../app/graph/checkpoint_regions.py" line="60" />
        <source>checkpoint {0}</source>
        <translation>检查点 {0}</translation>
    </message>
    <message>
        <location filename="../../app/graph/checkpoint_regions.py" line="160" />
        <source>Checkpointed segment: in the forward it kept only its {0} input tensor(s), not the activations inside (dashed boxes). Backward re-runs it to make them again.</source>
        <translation>检查点分段：前向时只保留了它的 {0} 个输入张量，没有保存内部的激活值（虚线小框）。反向时会重新运行这一段，把它们再算出来。</translation>
    </message>
    <message>
        <location filename="../../app/graph/checkpoint_regions.py" line="163" />
        <source>Click the title to draw (or hide) the graph its re-run built.</source>
        <translation>点击标题可画出（或隐藏）重算时构建的计算图。</translation>
    </message>
    <message>
        <location filename="../../app/graph/checkpoint_regions.py" line="317" />
        <source>This node needs activations the checkpoint did not store: its step triggered the recomputation.</source>
        <translation>这个节点需要检查点没有保存的激活值：正是它这一步触发了重算。</translation>
    </message>
    <message>
        <location filename="../../app/graph/checkpoint_regions.py" line="333" />
        <source>Recomputing checkpoint {0}: forward again ({1}/{2} ops)</source>
        <translation>重算检查点 {0}：再次前向（{1}/{2} 个算子）</translation>
    </message>
    <message>
        <location filename="../../app/graph/checkpoint_regions.py" line="339" />
        <location filename="../../app/graph/checkpoint_regions.py" line="347" />
        <source>{0} more</source>
        <translation>还有 {0} 个</translation>
    </message>
    <message>
        <location filename="../../app/graph/checkpoint_regions.py" line="350" />
        <source>■ stopped early: {0} op(s) of the forward not re-run</source>
        <translation>■ 提前停止：前向中有 {0} 个算子没有重跑</translation>
    </message>
    <message>
        <location filename="../../app/graph/checkpoint_regions.py" line="353" />
        <source>Nested backward through the recomputed nodes ({0}/{1})</source>
        <translation>在重算出的节点上进行嵌套反向（{0}/{1}）</translation>
    </message>
    <message>
        <location filename="../../app/graph/checkpoint_regions.py" line="360" />
        <source>Dropout mask: same as the forward's</source>
        <translation>Dropout 掩码：与前向时相同</translation>
    </message>
    <message>
        <location filename="../../app/graph/checkpoint_regions.py" line="361" />
        <source>Dropout mask: differs from the forward's — the gradient no longer matches it</source>
        <translation>Dropout 掩码：与前向时不同——梯度已不再对应那次前向</translation>
    </message>
    </context><context><name>Export</name><message>
        <location filename="../../app/export/files.py" line="48" />
        <source>cannot write {0}: folder {1} does not exist</source>
        <translation>无法写入 {0}：文件夹 {1} 不存在</translation>
    </message>
    <message>
        <location filename="../../app/export/files.py" line="50" />
        <source>cannot write {0}: no permission to write in {1}</source>
        <translation>无法写入 {0}：没有在 {1} 中写入的权限</translation>
    </message>
    <message>
        <location filename="../../app/export/files.py" line="52" />
        <source>cannot write {0}: the file is read-only</source>
        <translation>无法写入 {0}：文件是只读的</translation>
    </message>
    <message>
        <location filename="../../app/export/files.py" line="68" />
        <source>cannot write {0}: nothing was rendered</source>
        <translation>无法写入 {0}：没有渲染出任何内容</translation>
    </message>
    <message>
        <location filename="../../app/export/files.py" line="72" />
        <location filename="../../app/export/steps.py" line="48" />
        <source>cannot write {0}: {1}</source>
        <translation>无法写入 {0}：{1}</translation>
    </message>
    <message>
        <location filename="../../app/export/files.py" line="78" />
        <source>cannot write {0}: it is a directory</source>
        <translation>无法写入 {0}：它是一个文件夹</translation>
    </message>
    <message>
        <location filename="../../app/export/files.py" line="80" />
        <source>cannot write {0}: it is a FIFO (named pipe), not a regular file; left alone</source>
        <translation>无法写入 {0}：它是 FIFO（命名管道），不是普通文件；未作改动</translation>
    </message>
    <message>
        <location filename="../../app/export/files.py" line="82" />
        <source>cannot write {0}: it is a device, not a regular file; left alone</source>
        <translation>无法写入 {0}：它是设备，不是普通文件；未作改动</translation>
    </message>
    <message>
        <location filename="../../app/export/files.py" line="84" />
        <source>cannot write {0}: it is a socket, not a regular file; left alone</source>
        <translation>无法写入 {0}：它是套接字，不是普通文件；未作改动</translation>
    </message>
    <message>
        <location filename="../../app/export/files.py" line="85" />
        <source>cannot write {0}: it is not a regular file; left alone</source>
        <translation>无法写入 {0}：它不是普通文件；未作改动</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="64" />
        <source>unsupported format {0!r}: use one of {1}</source>
        <translation>不支持的格式 {0!r}：请使用 {1} 之一</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="111" />
        <source>the picture is too large to render ({0} x {1} px)</source>
        <translation>图片太大，无法渲染（{0} x {1} 像素）</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="133" />
        <source>scaled down to {0:.3g} so the image stays under {1} px a side</source>
        <translation>已缩小到 {0:.3g}，使图片每边不超过 {1} 像素</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="137" />
        <source>cannot write {0}: saving the PNG failed</source>
        <translation>无法写入 {0}：保存 PNG 失败</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="151" />
        <location filename="../../app/export/webpage.py" line="234" />
        <source>nothing to export: no graph is shown</source>
        <translation>没有可导出的内容：当前没有显示计算图</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="153" />
        <location filename="../../app/export/render.py" line="183" />
        <source>Autograd graph</source>
        <translation>自动求导计算图</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="163" />
        <source>op: {0}</source>
        <translation>运算：{0}</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="164" />
        <source>label: {0}</source>
        <translation>名称：{0}</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="165" />
        <source>shape: {0}</source>
        <translation>形状：{0}</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="166" />
        <source>module: {0}</source>
        <translation>模块：{0}</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="167" />
        <source>line {0}: {1}</source>
        <translation>第 {0} 行：{1}</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="168" />
        <source>backward starts here</source>
        <translation>反向传播从这里开始</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="169" />
        <source>{0}: {1} calls, the first one drawn; the loop-back edge feeds each call the last</source>
        <translation>{0}：调用 {1} 次，只画出第一次；回环边把每次调用的结果送给下一次</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="180" />
        <source>scaled to {0:.3g} to fit the largest PDF page</source>
        <translation>已缩放到 {0:.3g} 以适应最大的 PDF 页面</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="191" />
        <location filename="../../app/export/steps.py" line="113" />
        <source>cannot write {0}: the PDF writer failed to start</source>
        <translation>无法写入 {0}：PDF 写入器启动失败</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="278" />
        <source>no backward run {0} to animate (the trace has {1})</source>
        <translation>没有可用于动画的第 {0} 次反向传播（记录中共有 {1} 次）</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="311" />
        <location filename="../../app/export/steps.py" line="55" />
        <location filename="../../app/export/steps.py" line="119" />
        <location filename="../../app/export/webpage.py" line="250" />
        <source>export cancelled</source>
        <translation>导出已取消</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="317" />
        <source>step {0} of {1}</source>
        <translation>第 {0} 步，共 {1} 步</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="318" />
        <source>step {0} of {1} · recomputing checkpoint {2} ({3}/{4})</source>
        <translation>第 {0} 步，共 {1} 步 · 正在重算检查点 {2}（{3}/{4}）</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="348" />
        <source>{0} steps: {1} frames, evenly sampled</source>
        <translation>{0} 步：均匀抽取 {1} 帧</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="350" />
        <source>frames scaled down to {0:.3g} (at most {1} px a side)</source>
        <translation>帧已缩小到 {0:.3g}（每边最多 {1} 像素）</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="373" />
        <source>there is no graph to export</source>
        <translation>没有可导出的计算图</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="377" />
        <source>a GIF needs the trace of a backward run</source>
        <translation>GIF 需要一次反向传播的记录</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="382" />
        <source>a web page needs the trace of a backward run</source>
        <translation>网页需要一次反向传播的追踪记录</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="385" />
        <source>unsupported format {0!r}</source>
        <translation>不支持的格式 {0!r}</translation>
    </message>
    </context><context><name>ExportCaption</name><message>
        <location filename="../../app/export/captions.py" line="44" />
        <source>Step 0 of {0}: backward has not started.</source>
        <translation>第 0 步，共 {0} 步：反向传播尚未开始。</translation>
    </message>
    <message>
        <location filename="../../app/export/captions.py" line="49" />
        <source>Step {0} of {1}: {2} ran</source>
        <translation>第 {0} 步，共 {1} 步：执行了 {2}</translation>
    </message>
    <message>
        <location filename="../../app/export/captions.py" line="51" />
        <source> — backward is complete.</source>
        <translation> — 反向传播完成。</translation>
    </message>
    <message>
        <location filename="../../app/export/captions.py" line="72" />
        <source>Made by line {0}: {1}</source>
        <translation>由第 {0} 行生成：{1}</translation>
    </message>
    <message>
        <location filename="../../app/export/captions.py" line="76" />
        <source>Rule:</source>
        <translation>规则：</translation>
    </message>
    <message>
        <location filename="../../app/export/files.py" line="72" />
        <location filename="../../app/export/steps.py" line="48" />
        <source>cannot write {0}: {1}</source>
        <translation>无法写入 {0}：{1}</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="151" />
        <location filename="../../app/export/webpage.py" line="234" />
        <source>nothing to export: no graph is shown</source>
        <translation>没有可导出的内容：当前没有显示计算图</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="191" />
        <location filename="../../app/export/steps.py" line="113" />
        <source>cannot write {0}: the PDF writer failed to start</source>
        <translation>无法写入 {0}：PDF 写入器启动失败</translation>
    </message>
    <message>
        <location filename="../../app/export/render.py" line="311" />
        <location filename="../../app/export/steps.py" line="55" />
        <location filename="../../app/export/steps.py" line="119" />
        <location filename="../../app/export/webpage.py" line="250" />
        <source>export cancelled</source>
        <translation>导出已取消</translation>
    </message>
    <message>
        <location filename="../../app/export/steps.py" line="32" />
        <location filename="../../app/export/webpage.py" line="236" />
        <source>no backward run {0} to export (the trace has {1})</source>
        <translation>没有可导出的第 {0} 次反向传播（追踪记录中共有 {1} 次）</translation>
    </message>
    <message>
        <location filename="../../app/export/steps.py" line="43" />
        <source>a folder of slides is PNG or SVG, not {0}</source>
        <translation>幻灯片文件夹只能是 PNG 或 SVG，不能是 {0}</translation>
    </message>
    <message>
        <location filename="../../app/export/steps.py" line="106" />
        <source>Autograd handout</source>
        <translation>自动求导讲义</translation>
    </message>
    <message>
        <location filename="../../app/export/webpage.py" line="277" />
        <source>Autograd graph: backward run {0}</source>
        <translation>自动求导图：第 {0} 次反向传播</translation>
    </message>
    <message>
        <location filename="../../app/export/webpage.py" line="279" />
        <source>First step (Home)</source>
        <translation>第一步（Home）</translation>
    </message>
    <message>
        <location filename="../../app/export/webpage.py" line="279" />
        <source>Previous step (Left arrow)</source>
        <translation>上一步（左方向键）</translation>
    </message>
    <message>
        <location filename="../../app/export/webpage.py" line="280" />
        <source>Play / pause (Space)</source>
        <translation>播放 / 暂停（空格）</translation>
    </message>
    <message>
        <location filename="../../app/export/webpage.py" line="280" />
        <source>Next step (Right arrow)</source>
        <translation>下一步（右方向键）</translation>
    </message>
    <message>
        <location filename="../../app/export/webpage.py" line="281" />
        <source>Last step (End)</source>
        <translation>最后一步（End）</translation>
    </message>
    <message>
        <location filename="../../app/export/webpage.py" line="281" />
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <location filename="../../app/export/webpage.py" line="281" />
        <source>Click a box for its details</source>
        <translation>点击一个方框查看详情</translation>
    </message>
    </context><context><name>FiniteDiff</name><message>
        <location filename="../../app/panels/finite_diff.py" line="93" />
        <source>Check numerically</source>
        <translation>数值检验</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="94" />
        <source>Compare with finite differences</source>
        <translation>与有限差分比较</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="96" />
        <source>Nudge each element of this leaf up and down by a tiny step, evaluate the loss again (in float64) and compare the slope with autograd's gradient ({0}).</source>
        <translation>把这个叶子的每个元素上下各挪动一个极小的步长，重新计算损失（float64），并把斜率与 autograd 的梯度比较（{0}）。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="99" />
        <source>Run the script again…</source>
        <translation>再次运行脚本…</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="100" />
        <source>Open this trace's script and run it: the check needs a live run</source>
        <translation>打开此轨迹的脚本并运行：检查需要一次实时运行</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="117" />
        <source>This is a saved trace: the check needs its script to run again. Run it again, then check this leaf.</source>
        <translation>这是一个已保存的轨迹：检查需要再次运行它的脚本。请再次运行，然后检查这个叶子。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="119" />
        <source>This is a saved trace and its script is not here: open the script and run it, then check this leaf.</source>
        <translation>这是一个已保存的轨迹，而它的脚本不在这里：请打开脚本并运行，然后检查这个叶子。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="122" />
        <source>No backward run was recorded for this graph.</source>
        <translation>这张计算图没有记录到反向传播。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="124" />
        <source>This leaf has no name in the script, so it cannot be found when the script runs again.</source>
        <translation>这个叶子在脚本里没有名字，再次运行脚本时无法找到它。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="127" />
        <source>This leaf has {0} elements; finite differences are limited to {1}.</source>
        <translation>这个叶子有 {0} 个元素；有限差分最多支持 {1} 个。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="159" />
        <source>Run the script again</source>
        <translation>再次运行脚本</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="160" />
        <source>Run {path} again? It runs as with Run, and the check then uses that run.</source>
        <translation>再次运行 {path}？它会像按“运行”一样运行，检查随后使用这次运行的结果。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="199" />
        <source>Running the script again and evaluating the loss {0} times…</source>
        <translation>正在再次运行脚本，并计算损失 {0} 次…</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="224" />
        <source>finite differences (float64)</source>
        <translation>有限差分（float64）</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="226" />
        <source>Autograd's gradient for this leaf was not recorded in this run (torch.autograd.grad was not asked for it).</source>
        <translation>本次运行没有记录 autograd 给这个叶子的梯度（调用 torch.autograd.grad 时没有要它）。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="230" />
        <source>autograd</source>
        <translation>autograd</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="232" />
        <source>they agree</source>
        <translation>两者一致</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="232" />
        <source>they differ</source>
        <translation>两者不一致</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="233" />
        <source>largest difference {0} at {1} (relative {2}): {3}</source>
        <translation>最大差值 {0}，位于 {1}（相对差 {2}）：{3}</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="237" />
        <source>Warning: evaluating the loss again gave {0}, the script computed {1}; the script may be random or compute through Python numbers.</source>
        <translation>警告：再次计算得到的损失是 {0}，而脚本算出的是 {1}；脚本可能带有随机性，或经由 Python 数值进行计算。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="244" />
        <source>This leaf has more than {0} elements.</source>
        <translation>这个叶子的元素多于 {0} 个。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="245" />
        <source>When the script ran again, no tensor had this leaf's name at that backward call.</source>
        <translation>再次运行脚本时，在那次反向传播调用处没有名为该叶子的张量。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="247" />
        <source>When the script ran again, it did not reach this backward call.</source>
        <translation>再次运行脚本时，没有执行到这次反向传播调用。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="248" />
        <source>The script raised an error when it ran again.</source>
        <translation>再次运行时脚本抛出了错误。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="249" />
        <source>The loss does not depend on this leaf through torch operations (it may go through Python numbers such as .item()).</source>
        <translation>损失并不是通过 torch 运算依赖于这个叶子的（可能经过了 .item() 之类的 Python 数值）。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="251" />
        <source>Run the script first.</source>
        <translation>请先运行脚本。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="252" />
        <source>This leaf has no name.</source>
        <translation>这个叶子没有名字。</translation>
    </message>
    <message>
        <location filename="../../app/panels/finite_diff.py" line="254" />
        <source>The check failed.</source>
        <translation>检验失败。</translation>
    </message>
    </context><context><name>FoldedModules</name><message>
        <location filename="../../app/graph/fold_items.py" line="28" />
        <source>copy {0} of {1}</source>
        <translation>第 {0} 份副本（共 {1} 份）</translation>
    </message>
    <message>
        <location filename="../../app/graph/fold_items.py" line="29" />
        <source>copy {0} of {1}: {2}</source>
        <translation>第 {0} 份副本（共 {1} 份）：{2}</translation>
    </message>
    <message>
        <location filename="../../app/graph/fold_items.py" line="30" />
        <source>call {0} of {1}</source>
        <translation>第 {0} 次调用（共 {1} 次）</translation>
    </message>
    <message>
        <location filename="../../app/graph/fold_items.py" line="63" />
        <source>Fold the {0} identical modules {1} into one (×{0})</source>
        <translation>将 {0} 个相同的模块 {1} 折叠为一个（×{0}）</translation>
    </message>
    </context><context><name>GraphItems</name><message>
        <location filename="../../app/graph/items.py" line="44" />
        <location filename="../../app/graph/tensor_labels.py" line="27" />
        <source>None</source>
        <translation>None</translation>
    </message>
    <message>
        <location filename="../../app/graph/items.py" line="54" />
        <source>norm {0}</source>
        <translation>范数 {0}</translation>
    </message>
    <message>
        <location filename="../../app/graph/items.py" line="272" />
        <source>Module {0}. Click the title to collapse it into one box.</source>
        <translation>模块 {0}。点击标题可将其折叠成一个方框。</translation>
    </message>
    <message>
        <location filename="../../app/graph/items.py" line="592" />
        <source>Overview of a large graph: zoom in to see the boxes' text and gradients.</source>
        <translation>大型计算图的概览：放大后可以看到方框中的文字和梯度。</translation>
    </message>
    </context><context><name>GraphScene</name><message>
        <location filename="../../app/graph/scene.py" line="76" />
        <source>operation: {0}</source>
        <translation>运算：{0}</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="78" />
        <source>leaf tensor (requires grad): its gradient accumulates into .grad</source>
        <translation>叶子张量（需要梯度）：梯度累加到 .grad 中</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="80" />
        <source>output: backward starts here</source>
        <translation>输出：反向传播从这里开始</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="82" />
        <source>intermediate result (non-leaf): .grad is not kept unless retain_grad()</source>
        <translation>中间结果（非叶子）：除非调用 retain_grad()，否则不保留 .grad</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="85" />
        <source>shape {0}, {1}, {2}</source>
        <translation>形状 {0}，{1}，{2}</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="87" />
        <source>inside module {0}</source>
        <translation>位于模块 {0} 内</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="89" />
        <source>R: retain_grad() was called on this tensor</source>
        <translation>R：对这个张量调用了 retain_grad()</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="91" />
        <source>H: hooks: {0}</source>
        <translation>H：钩子：{0}</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="92" />
        <source>Click for details in the Inspector.</source>
        <translation>点击可在检查器中查看详情。</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="105" />
        <source>Module {0}, called {1} times, rolled into one box ({2} nodes). Click to unroll it: one box per call.</source>
        <translation>模块 {0} 被调用了 {1} 次，已合并成一个框（{2} 个节点）。点击展开：每次调用一个框。</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="108" />
        <source>Module {0}, call {1} of {2} ({3} nodes). Click to expand the calls; right-click to roll them back into one box.</source>
        <translation>模块 {0}，第 {1} 次调用（共 {2} 次，{3} 个节点）。点击展开这些调用；右键可把它们重新合并成一个框。</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="110" />
        <source>Module {0}: {1} nodes. Click to expand it.</source>
        <translation>模块 {0}：{1} 个节点。点击展开。</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="280" />
        <source>Saved for backward by {0}</source>
        <translation>由 {0} 为反向传播保存</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="282" />
        <source>Collapsed module group. Click to expand it.</source>
        <translation>已折叠的模块组。点击展开。</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="530" />
        <source>gradient: {0}</source>
        <translation>梯度：{0}</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="538" />
        <location filename="../../app/graph/scene.py" line="543" />
        <source>Gradient flowing backward along this edge: {0}</source>
        <translation>沿这条边反向流动的梯度：{0}</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="571" />
        <source>{0}.grad (retained) = </source>
        <translation>{0}.grad（已保留）= </translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="576" />
        <source>{0} saw {1}</source>
        <translation>{0} 收到 {1}</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="578" />
        <source>   and returned {0}</source>
        <translation>   并返回 {0}</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="684" />
        <location filename="../../app/graph/scene.py" line="689" />
        <source>Unroll: one box per call ({0} calls)</source>
        <translation>展开：每次调用一个框（共 {0} 次调用）</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="686" />
        <location filename="../../app/graph/scene.py" line="694" />
        <source>Collapse {0} into one box</source>
        <translation>把 {0} 折叠成一个框</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="692" />
        <source>Expand {0}</source>
        <translation>展开 {0}</translation>
    </message>
    <message>
        <location filename="../../app/graph/scene.py" line="697" />
        <source>Roll the {0} calls of {1} into one box</source>
        <translation>把 {1} 的 {0} 次调用合并成一个框</translation>
    </message>
    </context><context><name>GroupBox</name><message>
        <location filename="../../app/graph/group_text.py" line="31" />
        <source>{0} call {1}/{2}</source>
        <translation>{0} 第 {1}/{2} 次调用</translation>
    </message>
    <message>
        <location filename="../../app/graph/group_text.py" line="35" />
        <source>{0} nodes</source>
        <translation>{0} 个节点</translation>
    </message>
    <message>
        <location filename="../../app/graph/group_text.py" line="42" />
        <source>{0}: identical modules drawn once; the loop-back edge carries each one's output into the next. While stepping, the title says which copy runs. Click the title to unfold them: every module drawn.</source>
        <translation>{0}：相同的模块只画一次；回环边把每一个的输出传给下一个。单步执行时，标题会标明正在运行的是哪一份副本。点击标题可将它们展开：画出每一个模块。</translation>
    </message>
    </context><context><name>MemoryCurve</name><message>
        <location filename="../../app/panels/memory/curve_data.py" line="30" />
        <source>B</source>
        <translation>B</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/curve_data.py" line="30" />
        <source>KiB</source>
        <translation>KiB</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/curve_data.py" line="30" />
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/curve_data.py" line="30" />
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/curve_data.py" line="30" />
        <source>TiB</source>
        <translation>TiB</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/curve_data.py" line="178" />
        <source>1 op</source>
        <translation>1 个操作</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/curve_data.py" line="178" />
        <source>{n} ops</source>
        <translation>{n} 个操作</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/curve_data.py" line="183" />
        <source>saved {bytes} of activations ({pct:.0f} %), re-ran {ops}</source>
        <translation>节省了 {bytes} 激活值（{pct:.0f} %），重算了 {ops}</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/curve_data.py" line="186" />
        <source>held {bytes} more activations, re-ran {ops}</source>
        <translation>多保留了 {bytes} 激活值，重算了 {ops}</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/curve_data.py" line="188" />
        <source>End of forward: {w} with checkpoint, {wo} without. Peak: {pw} with, {pwo} without.</source>
        <translation>前向结束时：使用检查点 {w}，不使用 {wo}。峰值：使用 {pw}，不使用 {pwo}。</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/curve_data.py" line="191" />
        <source>{head}. {detail}</source>
        <translation>{head}。{detail}</translation>
    </message>
    </context><context><name>PartsChart</name><message>
        <location filename="../../app/panels/memory/parts_chart.py" line="26" />
        <source>parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/parts_chart.py" line="26" />
        <source>gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/parts_chart.py" line="27" />
        <source>optimizer states</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/parts_chart.py" line="27" />
        <source>activations</source>
        <translation>激活值</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/parts_chart.py" line="31" />
        <source>end of forward</source>
        <translation>前向结束</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/parts_chart.py" line="31" />
        <source>after backward</source>
        <translation>反向之后</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/parts_chart.py" line="32" />
        <source>after step</source>
        <translation>优化器更新后</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/parts_chart.py" line="37" />
        <source>no optimizer step</source>
        <translation>没有优化器步骤</translation>
    </message>
    <message>
        <location filename="../../app/panels/memory/parts_chart.py" line="37" />
        <source>not measured</source>
        <translation>未测量</translation>
    </message>
    </context><context><name>RankSwitch</name><message>
        <location filename="../../app/panels/processes.py" line="48" />
        <source>rank {0}</source>
        <translation>rank {0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/processes.py" line="50" />
        <source>main process</source>
        <translation>主进程</translation>
    </message>
    <message>
        <location filename="../../app/panels/processes.py" line="52" />
        <source>process {0}</source>
        <translation>进程 {0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/processes.py" line="54" />
        <source>thread {0}</source>
        <translation>线程 {0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/processes.py" line="61" />
        <source>step {0}: DDP all-reduced gradient bucket {1} ({2}): this rank's {3}</source>
        <translation>第 {0} 步：DDP 对梯度桶 {1}（{2}）做了 all-reduce：本 rank 的梯度 {3}</translation>
    </message>
    <message>
        <location filename="../../app/panels/processes.py" line="64" />
        <source> → averaged over all ranks {0}</source>
        <translation> → 所有 rank 平均后 {0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/processes.py" line="91" />
        <source>Process:</source>
        <translation>进程：</translation>
    </message>
    <message>
        <location filename="../../app/panels/processes.py" line="92" />
        <source>The script's backward runs came from several processes (DDP ranks, spawned children) or threads: pick one to step through its runs. Switching keeps the same backward call, so you can compare ranks.</source>
        <translation>脚本的反向传播来自多个进程（DDP 的各个 rank、spawn 出的子进程）或线程：选一个，逐步查看它的反向传播。切换时保持同一次 backward 调用，便于比较各个 rank。</translation>
    </message>
    <message>
        <location filename="../../app/panels/processes.py" line="107" />
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <location filename="../../app/panels/processes.py" line="112" />
        <source>pid {0}, {1} backward run(s)</source>
        <translation>进程号 {0}，{1} 次反向传播</translation>
    </message>
    </context><context><name>RecomputeItems</name><message>
        <location filename="../../app/graph/recompute_items.py" line="35" />
        <source>{0} · recomputed</source>
        <translation>{0} · 已重算</translation>
    </message>
    <message>
        <location filename="../../app/graph/recompute_items.py" line="37" />
        <source>{0} · used, freed</source>
        <translation>{0} · 已用过，已释放</translation>
    </message>
    <message>
        <location filename="../../app/graph/recompute_items.py" line="38" />
        <source>{0} · not stored</source>
        <translation>{0} · 未保存</translation>
    </message>
    <message>
        <location filename="../../app/graph/recompute_items.py" line="62" />
        <source>Not stored: {0} (saved for {1}). The checkpoint dropped it after the forward; backward makes it again by re-running the segment, reads it, and frees it.</source>
        <translation>未保存：{0}（为 {1} 保存）。检查点在前向之后丢弃了它；反向传播重新运行这一段再次算出它，读取后释放。</translation>
    </message>
    <message>
        <location filename="../../app/graph/recompute_items.py" line="112" />
        <source>Re-running now: this node's operation runs again inside backward, making the tensors the checkpoint did not store.</source>
        <translation>正在重新运行：这个节点的运算在反向传播中再次运行，重新算出检查点没有保存的张量。</translation>
    </message>
    </context><context><name>RecomputeMarks</name><message>
        <location filename="../../app/panels/checkpoint/recompute_marks.py" line="42" />
        <source>Checkpoint {0} ({1}) re-ran its forward here: {2} op(s)</source>
        <translation>检查点 {0}（{1}）在这里重新运行了它的前向：{2} 个运算</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/recompute_marks.py" line="45" />
        <source>(stopped early: every tensor it needed was back)</source>
        <translation>（提前停止：需要的张量都已恢复）</translation>
    </message>
    </context><context><name>RecomputePhase</name><message>
        <location filename="../../app/panels/checkpoint/phase_text.py" line="30" />
        <source>a node</source>
        <translation>某个节点</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/phase_text.py" line="32" />
        <source>&lt;b&gt;Step {0} of {1} · recomputing checkpoint {2}&lt;/b&gt; ({3}): </source>
        <translation>&lt;b&gt;第 {0} 步，共 {1} 步 · 正在重算检查点 {2}&lt;/b&gt;（{3}）：</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/phase_text.py" line="36" />
        <source>{0} needs activations the checkpoint did not store, so torch runs the segment's forward again ({1} ops).</source>
        <translation>{0} 需要检查点没有保存的激活值，所以 torch 再次运行这一段的前向（{1} 个算子）。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/phase_text.py" line="39" />
        <source>re-running op {0} of {1}: &lt;code&gt;{2}&lt;/code&gt;.</source>
        <translation>正在重跑第 {0} 个算子，共 {1} 个：&lt;code&gt;{2}&lt;/code&gt;。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/phase_text.py" line="42" />
        <source>stopped early after {0} of the forward's {1} ops: every tensor the segment needed was recovered.</source>
        <translation>在前向 {1} 个算子中的第 {0} 个之后提前停止：这一段需要的张量都已恢复。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/phase_text.py" line="46" />
        <source>nested backward through the recomputed nodes, step {0} of {1}: {2} ran.</source>
        <translation>在重算出的节点上进行嵌套反向，第 {0} 步，共 {1} 步：{2} 已运行。</translation>
    </message>
    <message>
        <location filename="../../app/panels/checkpoint/phase_text.py" line="49" />
        <source>&lt;b&gt;The re-run drew a different Dropout mask&lt;/b&gt; (preserve_rng_state=False): the gradient no longer matches the forward.</source>
        <translation>&lt;b&gt;重算时抽到了不同的 Dropout 掩码&lt;/b&gt;（preserve_rng_state=False）：梯度不再对应那次前向。</translation>
    </message>
    </context><context><name>RolledView</name><message>
        <location filename="../../app/graph/rolled_items.py" line="65" />
        <source>Loop: the {0} calls of this module run one after another, each fed the previous call's output along this edge. Only the first call is drawn; unroll the module (its frame's menu) to see every call.</source>
        <translation>循环：这个模块的 {0} 次调用依次执行，每次调用都沿这条边接收上一次调用的输出。图中只画出第一次调用；展开该模块（框的右键菜单）可以看到每一次调用。</translation>
    </message>
    </context><context><name>ScaleChart</name><message>
        <location filename="../../app/panels/grad_scaler/scale_chart.py" line="77" />
        <source>loss scale</source>
        <translation>损失缩放系数</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/scale_chart.py" line="78" />
        <source>iteration (▲/▼: its update(), at the iteration's end)</source>
        <translation>迭代（▲/▼：该迭代结束时的 update()）</translation>
    </message>
    </context><context><name>ScalerStateDiagram</name><message>
        <location filename="../../app/panels/grad_scaler/state_diagram.py" line="44" />
        <source>unscale_()</source>
        <translation>unscale_()</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/state_diagram.py" line="45" />
        <source>step()</source>
        <translation>step()</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/state_diagram.py" line="46" />
        <source>step() — unscales first</source>
        <translation>step() —— 先自行反缩放</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/state_diagram.py" line="47" />
        <source>update()</source>
        <translation>update()</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/state_diagram.py" line="98" />
        <source>{0} refused</source>
        <translation>{0} 被拒绝</translation>
    </message>
    <message>
        <location filename="../../app/panels/grad_scaler/state_diagram.py" line="167" />
        <source>Optimizer {0}</source>
        <translation>优化器 {0}</translation>
    </message>
    </context><context><name>WhyGradient</name><message>
        <location filename="../../app/panels/why_gradient.py" line="68" />
        <location filename="../../app/panels/why_gradient.py" line="92" />
        <source>where {0}</source>
        <translation>其中 {0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/why_gradient.py" line="74" />
        <source>… and {0} more inputs</source>
        <translation>… 另有 {0} 个输入</translation>
    </message>
    <message>
        <location filename="../../app/panels/why_gradient.py" line="105" />
        <source>torch's derivatives.yaml was not found in the torch that ran, so its formula cannot be shown.</source>
        <translation>运行所用的 torch 中没有找到 derivatives.yaml，因此无法显示它的公式。</translation>
    </message>
    <message>
        <location filename="../../app/panels/why_gradient.py" line="107" />
        <source>derivatives.yaml has no entry for {0} (a custom autograd.Function or a node torch defines in C++ by hand).</source>
        <translation>derivatives.yaml 中没有 {0} 的条目（它是自定义的 autograd.Function，或 torch 在 C++ 中手写的节点）。</translation>
    </message>
    <message>
        <location filename="../../app/panels/why_gradient.py" line="140" />
        <source>Rule: {0}</source>
        <translation>求导法则：{0}</translation>
    </message>
    <message>
        <location filename="../../app/panels/why_gradient.py" line="159" />
        <source>Why this gradient</source>
        <translation>为什么是这个梯度</translation>
    </message>
    <message>
        <location filename="../../app/panels/why_gradient.py" line="160" />
        <source>The local derivative rule of this operation: how the gradient it received (grad) becomes the gradient of each input.
⊙ element-wise product · matrix product ᵀ transpose
Σ_bcast: summed over the dimensions broadcasting added
𝟙[…]: 1 where the condition holds, else 0</source>
        <translation>这个运算的局部求导法则：它收到的梯度（grad）如何变成每个输入的梯度。
⊙ 逐元素乘积 · 矩阵乘积 ᵀ 转置
Σ_bcast：对广播新增的维度求和
𝟙[…]：条件成立处为 1，否则为 0</translation>
    </message>
    <message>
        <location filename="../../app/panels/why_gradient.py" line="169" />
        <source>A leaf adds every gradient it receives to .grad: across backward calls they add up until you zero .grad (optimizer.zero_grad()).</source>
        <translation>叶子会把收到的每个梯度加到 .grad 上：多次反向传播的梯度会不断累加，直到你把 .grad 清零（optimizer.zero_grad()）。</translation>
    </message>
    <message>
        <location filename="../../app/panels/why_gradient.py" line="191" />
        <source>The numbers appear when the stepper reaches this node.</source>
        <translation>单步执行到这个节点时会代入具体数值。</translation>
    </message>
    <message>
        <location filename="../../app/panels/why_gradient.py" line="194" />
        <source>grad: what this node received; the last value is the gradient torch sent to that input.</source>
        <translation>grad：这个节点收到的梯度；最后一个值是 torch 实际发给该输入的梯度。</translation>
    </message>
    <message>
        <location filename="../../app/panels/why_gradient.py" line="197" />
        <source>Not in the rule table; torch's own formula (derivatives.yaml of the torch that ran):</source>
        <translation>不在法则表中；以下是 torch 自己的公式（来自运行所用 torch 的 derivatives.yaml）：</translation>
    </message>
</context><context>
    <name>ExportScaler</name>
    <message>
        <source>scale</source>
        <translation>scale（放大）</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>反向传播</translation>
    </message>
    <message>
        <source>unscale_ · inf check</source>
        <translation>unscale_ · 检查 inf</translation>
    </message>
    <message>
        <source>step / skip</source>
        <translation>step / 跳过</translation>
    </message>
    <message>
        <source>update</source>
        <translation>update（更新）</translation>
    </message>
    <message>
        <source>{0} was refused: {1}: “{2}”</source>
        <translation>{0} 被拒绝：{1}：“{2}”</translation>
    </message>
    <message>
        <source>{0} divided the gradients by {1} (norm {2} → {3}) and checked them: {4}</source>
        <translation>{0} 将梯度除以 {1}（范数 {2} → {3}）并检查：{4}</translation>
    </message>
    <message>
        <source>inf/NaN found</source>
        <translation>发现 inf/NaN</translation>
    </message>
    <message>
        <source>no inf/NaN</source>
        <translation>没有 inf/NaN</translation>
    </message>
    <message>
        <source>it unscaled the gradients itself first; </source>
        <translation>它先自行取消了梯度缩放；</translation>
    </message>
    <message>
        <source>{0}: {1}inf/NaN in the gradients, so optimizer.step() was skipped: the parameters did not change.</source>
        <translation>{0}：{1}梯度中有 inf/NaN，因此跳过了 optimizer.step()：参数没有改变。</translation>
    </message>
    <message>
        <source>{0}: {1}optimizer.step() ran with the unscaled gradients.</source>
        <translation>{0}：{1}用取消缩放后的梯度执行了 optimizer.step()。</translation>
    </message>
    <message>
        <source>a step had inf/NaN gradients: the scale backs off</source>
        <translation>有一步的梯度含 inf/NaN：缩放系数回退</translation>
    </message>
    <message>
        <source>enough clean iterations in a row: the scale grows</source>
        <translation>连续足够多次迭代没有 inf/NaN：缩放系数增大</translation>
    </message>
    <message>
        <source>no inf/NaN; clean iterations in a row: {0}</source>
        <translation>没有 inf/NaN；连续正常迭代次数：{0}</translation>
    </message>
    <message>
        <source>{0}: {1}, {2} → {3}.</source>
        <translation>{0}：{1}，{2} → {3}。</translation>
    </message>
    <message>
        <source>{0} multiplied by {1}.</source>
        <translation>{0} 乘以 {1}。</translation>
    </message>
    <message>
        <source>{0}.scale(loss) multiplied the loss by {1}: backward starts from the scaled loss.</source>
        <translation>{0}.scale(loss) 把损失乘以 {1}：反向传播从放大后的损失开始。</translation>
    </message>
    <message>
        <source>backward of the scaled loss: every gradient is {0} × the real one until it is unscaled.</source>
        <translation>放大后损失的反向传播：在取消缩放之前，每个梯度都是真实梯度的 {0} 倍。</translation>
    </message>
</context>
</TS>